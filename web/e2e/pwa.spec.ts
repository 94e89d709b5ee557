import { expect, test, type Page } from '@playwright/test';

/**
 * Issue 12 item 1: with the PWA's service worker active, server pages (the test checkout
 * `/dev/checkout/…`, the development outbox `/dev/mail`) are fetched from the server, never answered
 * with the app shell by the worker's navigation fallback.
 */
test.use({ serviceWorkers: 'allow' });

/** Waits until a service worker controls the page (installed, activated, clients claimed). */
async function waitForServiceWorker(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), { message: 'service worker attivo' }).toBe(true);
}

test('con il service worker attivo le pagine del server non diventano la 404 della app', async ({ page }) => {
  await page.goto('/dashboard');
  await expect(page.getByText('Crediti disponibili:')).toBeVisible();
  await waitForServiceWorker(page);
  // a reload now goes through the worker: the app shell comes from its precache
  await page.reload();
  await expect(page.getByText('Crediti disponibili:')).toBeVisible();
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);

  // buying credits: the package button leads to the test checkout page served by the server
  await page.goto('/credits');
  await page.getByRole('button', { name: /€/ }).first().click();
  await expect(page).toHaveURL(/\/dev\/checkout\//);
  await expect(page.getByText('MODALITÀ TEST — nessun addebito reale')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Pagamento FotoPronta' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Paga' })).toBeVisible();

  // the same page reloaded, and the development outbox, typed in the address bar
  await page.reload();
  await expect(page.getByText('MODALITÀ TEST — nessun addebito reale')).toBeVisible();
  await page.goto('/dev/mail');
  await expect(page.getByRole('heading', { name: 'Posta in uscita (sviluppo)' })).toBeVisible();

  // and the app still works offline-first for its own routes
  await page.goto('/photos');
  await expect(page.getByRole('heading', { name: 'Foto Processate' })).toBeVisible();
});
