import { expect, test } from '@playwright/test';
import { emojiIn, screenshots, signUpNewClient, solidPng } from './helpers';

/** The signed-in app's finish: icons instead of emoji, the app's own dialogs, offline. Uses the session saved by the setup project. */

test('schermate principali senza emoji: sidebar, schede, campanella, accesso negato', async ({ page }) => {
  for (const [path, heading] of [
    ['/dashboard', /^(Buongiorno|Buon pomeriggio|Buonasera), Giulia!$/],
    ['/upload', 'Carica le tue foto'],
    ['/photos', 'Foto Processate'],
    ['/orders', null],
    ['/credits', null],
    ['/profile', null],
    ['/admin-dashboard', 'Accesso Negato'],
  ] as const) {
    await page.goto(path);
    if (heading) await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    else await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await emojiIn(page), path).toEqual([]);
  }
  await page.goto('/dashboard');
  const sidebar = page.getByRole('complementary', { name: 'Barra laterale' });
  await expect(sidebar.locator('.sidebar-link svg')).toHaveCount(6);
  await expect(page.locator('.stat-card svg')).toHaveCount(4);
  await page.getByRole('button', { name: /^Notifiche/ }).click();
  await expect(page.locator('#notification-panel')).toBeVisible();
  expect(await emojiIn(page)).toEqual([]);
  await page.keyboard.press('Escape');
  await screenshots(page, 'sidebar', async () => {
    if ((page.viewportSize()?.width ?? 1280) < 768) {
      await page.getByRole('button', { name: 'Apri menu' }).click();
      await expect(sidebar).toBeVisible();
    }
  });
});

test('eliminare una foto chiede conferma nel dialogo dell’app (focus, Esc, toast sopra)', async ({ page, context }) => {
  const nativeDialogs: string[] = [];
  page.on('dialog', (d) => {
    nativeDialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  // A client of its own: the shared one's credits are counted by client.spec.ts.
  await signUpNewClient(page);
  await page.goto('/upload');
  await page.getByLabel('Seleziona foto').setInputFiles({ name: 'tazza-blu.png', mimeType: 'image/png', buffer: solidPng(96, 96, [30, 80, 200]) });
  await page.getByRole('button', { name: 'Carica 1 foto' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Foto caricate' })).toBeVisible();

  await page.goto('/photos');
  // Let the job settle first: its live 'completed'/'failed' event re-renders the card, which must not
  // happen under the open dialog (it made this test flaky once the job's database steps got faster).
  await expect(page.getByText(/^(Completata|Errore)$/).first()).toBeVisible({ timeout: 60_000 });
  const remove = page.getByRole('button', { name: /^Elimina / });
  await expect(remove).toHaveCount(1);
  await remove.click();
  const dialog = page.getByRole('dialog', { name: 'Eliminare la foto?' });
  await expect(dialog).toBeVisible();
  expect(nativeDialogs).toEqual([]);
  await expect(dialog).toHaveAttribute('aria-modal', 'true');
  // Focus moves in and Tab stays inside.
  for (let i = 0; i < 5; i++) {
    await page.keyboard.press('Tab');
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
  }
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(remove).toBeFocused();

  await remove.click();
  await screenshots(page, 'dialog-delete');
  // Offline the deletion fails: the dialog stays open and the error toast is above it, clickable.
  await context.setOffline(true);
  await dialog.getByRole('button', { name: 'Elimina', exact: true }).click();
  // (Another toast may come from the live events, e.g. this plain image failing its processing.)
  const toast = page.getByRole('alert').filter({ has: page.locator('.toast-title', { hasText: /^Errore$/ }) });
  await expect(toast).toBeVisible();
  await expect(dialog).toBeVisible();
  const box = (await toast.boundingBox())!;
  const onTop = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('.toast') !== null, [box.x + box.width / 2, box.y + box.height / 2]);
  expect(onTop, 'il toast è coperto dal dialogo').toBe(true);
  await screenshots(page, 'dialog-with-toast');
  await context.setOffline(false);

  await dialog.getByRole('button', { name: 'Annulla' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('article')).toHaveCount(1);
  expect(nativeDialogs).toEqual([]);
});

test("server irraggiungibile con il browser online: banner 'Sei offline', che sparisce quando il server risponde", async ({ page }) => {
  // The browser keeps its network (navigator.onLine stays true); only the server stops answering, as on a
  // connected laptop whose network does not reach it. No service worker here (project default: blocked).
  await page.goto('/dashboard');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/Giulia!$/);
  const banner = page.getByRole('alert').filter({ hasText: 'Sei offline' });
  await expect(banner).toHaveCount(0);

  const serverPaths = (url: URL) => url.pathname.startsWith('/api/') || url.pathname === '/healthz';
  await page.route(serverPaths, (route) => route.abort('internetdisconnected'));
  expect(await page.evaluate(() => navigator.onLine)).toBe(true);
  await page.getByRole('complementary', { name: 'Barra laterale' }).getByRole('link', { name: 'Ordini' }).click();
  await expect(banner).toContainText('Alcune funzioni potrebbero non essere disponibili');
  await screenshots(page, 'server-unreachable-banner');

  // The server answers again: the banner's probe (every few seconds) gets through and the banner goes.
  await page.unroute(serverPaths);
  await expect(banner).toHaveCount(0, { timeout: 20_000 });
  await expect(page.getByRole('heading', { level: 1, name: 'Ordini' })).toBeVisible();
});

test.describe('offline', () => {
  test.use({ serviceWorkers: 'allow' });

  test("ricaricare offline mostra l'app in cache, il banner 'Sei offline' e gli ultimi dati", async ({ page, context }) => {
    await page.goto('/dashboard');
    // Wait until the service worker controls the page (clientsClaim), then load once more through it
    // so that the reads (/api/me, /api/photos) are in its cache.
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller)), { timeout: 20_000 }).toBe(true);
    await page.reload();
    const credits = page.getByText('Crediti disponibili:');
    await expect(credits).toHaveText(/Crediti disponibili: \d+/);
    const creditsOnline = await credits.textContent();
    await page.goto('/photos');
    await expect(page.getByRole('heading', { name: 'Foto Processate' })).toBeVisible();
    const summary = page.getByText(/^\d+ foto · \d+ completate/);
    await expect(summary).toBeVisible();
    const summaryOnline = await summary.textContent();

    await context.setOffline(true);
    await page.reload();
    await expect(page.getByRole('alert').filter({ hasText: 'Sei offline' })).toContainText('Alcune funzioni potrebbero non essere disponibili');
    await expect(page.getByRole('heading', { name: 'Foto Processate' })).toBeVisible();
    await expect(page.getByText(/^\d+ foto · \d+ completate/)).toHaveText(summaryOnline!);
    await expect(page.getByRole('heading', { name: 'Errore' })).toHaveCount(0);

    await page.goto('/dashboard');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(/Giulia!$/);
    await expect(page.getByText('Crediti disponibili:')).toHaveText(creditsOnline!);
    await expect(page.getByRole('alert').filter({ hasText: 'Sei offline' })).toBeVisible();
    await screenshots(page, 'offline-banner');
    await context.setOffline(false);
  });
});
