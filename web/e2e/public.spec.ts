import { expect, test } from '@playwright/test';

/** Scenario a: public pages, no account. */
test('la home mostra la call to action con 15 foto gratis', async ({ page }) => {
  await page.goto('/');
  const cta = page.getByRole('link', { name: 'Inizia ora - 15 foto gratis' });
  await expect(cta).toBeVisible();
  await cta.click();
  await expect(page).toHaveURL(/\/auth$/);
});

test('una rotta sconosciuta mostra la pagina 404', async ({ page }) => {
  await page.goto('/questa-pagina-non-esiste');
  await expect(page.getByRole('heading', { name: 'Pagina non trovata' })).toBeVisible();
  await expect(page.getByText('La pagina che cerchi non esiste o è stata spostata.')).toBeVisible();
  await expect(page).toHaveTitle('Pagina non trovata – FotoPronta');
  await page.getByRole('link', { name: 'Torna alla Home' }).click();
  await expect(page).toHaveURL(/\/$/);
});
