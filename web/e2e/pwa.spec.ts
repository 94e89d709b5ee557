import { expect, test, type Page } from '@playwright/test';

/**
 * With the PWA's service worker active, server pages (the test checkout
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

/** A worker from an older release: its navigation fallback answers every page with the app shell. */
const STALE_WORKER = `
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  if (event.request.mode === 'navigate') event.respondWith(fetch('/index.html'));
});
`;

test("un service worker vecchio che serve la app per una pagina del server viene scartato", async ({ page, context }) => {
  await context.route('**/sw-vecchio.js', (route) => route.fulfill({ contentType: 'text/javascript', body: STALE_WORKER }));
  await page.goto('/dashboard');
  await expect(page.getByText('Crediti disponibili:')).toBeVisible();
  await waitForServiceWorker(page);
  // replace the current worker with the old one, as a browser that has not updated yet would have it
  await context.route('**/sw.js', (route) => route.abort());
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.register('/sw-vecchio.js', { scope: '/' });
    const worker = registration.installing ?? registration.waiting ?? registration.active;
    if (worker && worker.state !== 'activated') {
      await new Promise<void>((resolve) => worker.addEventListener('statechange', () => worker.state === 'activated' && resolve()));
    }
  });
  // the app reloads when a new worker takes control (auto-update); the current worker (its script
  // blocked above) cannot come back meanwhile, as for a browser that has not downloaded the update yet
  await expect
    .poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? '').catch(() => ''), { message: 'worker vecchio attivo' })
    .toContain('/sw-vecchio.js');

  // a new tab (the first one may still be reloading): the old worker answers its navigation
  const tab = await context.newPage();
  await tab.goto('/dev/mail');
  await expect(tab.getByRole('heading', { name: 'Posta in uscita (sviluppo)' })).toBeVisible();
  expect(await tab.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length)).toBe(0);
});
