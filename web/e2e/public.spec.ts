import { expect, test } from '@playwright/test';

/** Scenario a: public pages, no account. */
test('la home mostra la call to action con 15 foto gratis', async ({ page }) => {
  await page.goto('/');
  const cta = page.getByRole('link', { name: 'Inizia ora - 15 foto gratis' });
  await expect(cta).toBeVisible();
  await cta.click();
  // the sign-up tab, in its free-trial wording
  await expect(page).toHaveURL(/\/auth\?from=free-trial$/);
  await expect(page.getByRole('tab', { name: 'Registrati' })).toHaveAttribute('aria-selected', 'true');
});

test('una rotta sconosciuta mostra la pagina 404', async ({ page }) => {
  await page.goto('/questa-pagina-non-esiste');
  await expect(page.getByRole('heading', { name: 'Pagina non trovata' })).toBeVisible();
  await expect(page.getByText('La pagina che cerchi non esiste o è stata spostata.')).toBeVisible();
  await expect(page).toHaveTitle('Pagina non trovata – FotoPronta');
  await page.getByRole('link', { name: 'Torna alla Home' }).click();
  await expect(page).toHaveURL(/\/$/);
});

/** The Content-Security-Policy lets the built app, its styles and its service worker run. */
test('la Content-Security-Policy non blocca nulla e il service worker si registra', async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL, serviceWorkers: 'allow' });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|CSP violation/.test(m.text())) violations.push(m.text());
  });
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`)),
  );
  const response = await page.goto('/');
  expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(response?.headers()['x-content-type-options']).toBe('nosniff');
  await expect(page.getByRole('link', { name: 'Inizia ora - 15 foto gratis' })).toBeVisible();
  const worker = await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.scriptURL ?? '');
  expect(worker).toMatch(/\/sw\.js$/);
  await page.goto('/auth');
  await expect(page.getByRole('tab', { name: 'Registrati' })).toBeVisible();
  await page.goto('/questa-pagina-non-esiste');
  await expect(page.getByRole('heading', { name: 'Pagina non trovata' })).toBeVisible();
  expect(violations).toEqual([]);
  await context.close();
});
