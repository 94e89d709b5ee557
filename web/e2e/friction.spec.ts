import { expect, test, type Locator, type Page } from '@playwright/test';
import { PROCESSING_TIMEOUT_MS, screenshots } from './helpers';
import { addPhotoRows } from './stack-db';
import { apiLogin, createUsers, productJpeg, uiLogin, uniqueEmail, uploadPhoto, waitForJob } from './staff-helpers';

/**
 * The friction of a day of real work, for sellers, designers and admins: password change in place,
 * sign-up calls to action, the /photos sort, toasts and banners, Italian wording, SEO names, the
 * Amazon minimum, the designer's dashboard and the admin's users table.
 */

const PASSWORD = 'segreto123';
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 375, height: 740 };

interface AppConfig {
  accepted_formats: string[];
  free_credits: number;
}

/** "JPG, PNG e RAW (…)": the server's accepted formats as the pages list them. */
async function formatsSentence(page: Page): Promise<string> {
  const config = (await (await page.request.get('/api/config')).json()) as AppConfig;
  const f = config.accepted_formats;
  return `${f.slice(0, -1).join(', ')} e ${f[f.length - 1]}`;
}

/** The boxes of `a` and `b` overlap. */
async function overlap(a: Locator, b: Locator): Promise<boolean> {
  const [x, y] = [await a.boundingBox(), await b.boundingBox()];
  if (!x || !y) return false;
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height;
}

/** The aria-labels of the /photos cards, in the order shown. */
const cardNames = (page: Page) => page.locator('.photo-grid > article').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));

test("'Cambia password' sul profilo: si cambia sul posto, questa sessione resta, le altre finiscono", async ({ page, browser, baseURL }) => {
  const seller = { email: uniqueEmail('e2e-password'), password: PASSWORD, role: 'client' as const, first_name: 'Paola' };
  createUsers([seller]);
  const other = await browser.newContext({ baseURL, locale: 'it-IT', serviceWorkers: 'block' });
  const otherPage = await other.newPage();
  await uiLogin(otherPage, seller.email, PASSWORD);
  await expect(otherPage).toHaveURL(/\/dashboard$/);

  await uiLogin(page, seller.email, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/profile');
  await page.getByRole('button', { name: 'Cambia password' }).click();
  await expect(page).toHaveURL(/\/profile$/);
  const form = page.getByRole('form', { name: 'Cambia password' });
  await form.getByLabel('Password attuale', { exact: true }).fill('non-e-questa');
  await form.getByLabel('Nuova password', { exact: true }).fill('nuova-segreta-1');
  await form.getByLabel('Conferma nuova password', { exact: true }).fill('nuova-segreta-1');
  await screenshots(page, 'profile-change-password', () => form.scrollIntoViewIfNeeded());
  await form.getByRole('button', { name: 'Aggiorna password' }).click();
  await expect(form.getByRole('alert')).toHaveText('La password attuale non è corretta.');

  await form.getByLabel('Password attuale', { exact: true }).fill(PASSWORD);
  await form.getByRole('button', { name: 'Aggiorna password' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Password aggiornata' })).toBeVisible();
  await expect(form).toHaveCount(0);

  // this browser stays signed in; the other one is signed out at its next request
  await page.reload();
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByRole('heading', { name: 'Profilo' })).toBeVisible();
  await otherPage.goto('/photos');
  await expect(otherPage).toHaveURL(/\/auth$/);
  expect((await page.request.post('/api/auth/login', { data: { email: seller.email, password: PASSWORD } })).status()).toBe(401);
  expect((await page.request.post('/api/auth/login', { data: { email: seller.email, password: 'nuova-segreta-1' } })).status()).toBe(200);
  await other.close();
});

test('le call to action della landing aprono la registrazione (prova gratuita); le FAQ elencano i formati del server', async ({ page }) => {
  for (const name of [/^Inizia ora - \d+ foto gratis$/, /^Scegli Light$/, /^Trasforma \d+ foto gratis$/, /^Inizia Gratis$/]) {
    await page.goto('/');
    await page.getByRole('link', { name }).first().click();
    await expect(page).toHaveURL(/\/auth\?from=free-trial$/);
    await expect(page.getByRole('tab', { name: 'Registrati' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('heading', { name: 'Inizia la tua prova gratuita' })).toBeVisible();
  }
  await page.goto('/');
  await expect(page.getByRole('navigation', { name: 'Navigazione principale' }).getByRole('link', { name: 'Accedi' })).toHaveAttribute('href', '/auth');

  const faq = page.locator('details', { hasText: 'Quali formati posso caricare?' });
  await faq.locator('summary').click();
  await expect(faq.locator('p')).toContainText(`Accettiamo ${await formatsSentence(page)}.`);
});

test('/photos: ordina per più recenti, meno recenti, nome e stato (ordine del server)', async ({ page }) => {
  const seller = { email: uniqueEmail('e2e-ordina'), password: PASSWORD, role: 'client' as const };
  createUsers([seller]);
  addPhotoRows(seller.email, [
    { name: 'b-zaino.jpg', photo_status: 'processed', job_status: 'completed', second: 0 },
    { name: 'd-borsa.jpg', photo_status: 'uploaded', job_status: 'failed', second: 1 },
    { name: 'a-scarpa.jpg', photo_status: 'processing', job_status: 'processing', second: 2 },
    { name: 'c-tazza.jpg', photo_status: 'uploaded', job_status: 'pending', second: 3 },
  ]);
  await uiLogin(page, seller.email, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/photos');
  const sort = page.getByLabel('Ordina per');
  await expect(sort).toHaveValue('newest');
  await expect.poll(() => cardNames(page)).toEqual(['c-tazza.jpg', 'a-scarpa.jpg', 'd-borsa.jpg', 'b-zaino.jpg']);
  await sort.selectOption({ label: 'Meno recenti' });
  await expect.poll(() => cardNames(page)).toEqual(['b-zaino.jpg', 'd-borsa.jpg', 'a-scarpa.jpg', 'c-tazza.jpg']);
  await sort.selectOption({ label: 'Nome file (A-Z)' });
  await expect.poll(() => cardNames(page)).toEqual(['a-scarpa.jpg', 'b-zaino.jpg', 'c-tazza.jpg', 'd-borsa.jpg']);
  // errors first, then in progress, waiting, completed
  await sort.selectOption({ label: 'Stato' });
  await expect.poll(() => cardNames(page)).toEqual(['d-borsa.jpg', 'a-scarpa.jpg', 'c-tazza.jpg', 'b-zaino.jpg']);
  await screenshots(page, 'photos-sort');
});

test('pagamento completato: il messaggio resta finché non lo chiudi', async ({ page }) => {
  const seller = { email: uniqueEmail('e2e-pagamento'), password: PASSWORD, role: 'client' as const };
  createUsers([seller]);
  await uiLogin(page, seller.email, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/credits');
  await page.getByRole('listitem').filter({ hasText: 'Light' }).getByRole('button').click();
  await expect(page).toHaveURL(/\/dev\/checkout\/cs_test_local_/);
  await page.getByRole('button', { name: 'Paga' }).click();
  await expect(page).toHaveURL(/\/dashboard/);
  const banner = page.getByRole('status', { name: 'Pagamento completato' });
  await expect(banner).toContainText('Sono stati aggiunti 50 crediti.');
  await expect(page).toHaveURL(/\/dashboard$/); // the checkout session left the address: a reload does not verify again
  await page.waitForTimeout(6000); // longer than any toast
  await expect(banner).toBeVisible();
  await screenshots(page, 'dashboard-payment-banner');
  await banner.getByRole('button', { name: 'Chiudi messaggio di pagamento' }).click();
  await expect(banner).toHaveCount(0);
});

test("caricamento: '1 credito', formati dal server, la lista con lo stato in vista a 1366×900; sul telefono 'Tocca per scegliere le foto'", async ({ page, browser, baseURL }) => {
  const seller = { email: uniqueEmail('e2e-carica'), password: PASSWORD, role: 'client' as const };
  createUsers([seller]);
  await page.setViewportSize(DESKTOP);
  await uiLogin(page, seller.email, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/upload');
  await expect(page.getByText(`Formati supportati: ${await formatsSentence(page)}.`)).toBeVisible();
  await expect(page.getByText('Trascina qui le tue foto')).toBeVisible();
  const chooser = page.getByLabel('Seleziona foto');
  await chooser.setInputFiles({ name: 'scarpa-rossa.jpg', mimeType: 'image/jpeg', buffer: productJpeg() });
  await expect(page.getByText('In coda: 1 foto · costo 1 credito', { exact: true })).toBeVisible();
  await chooser.setInputFiles({ name: 'scarpa-blu.jpg', mimeType: 'image/jpeg', buffer: productJpeg(300, 240) });
  await page.getByLabel(/^Ritocco del team grafico/).check();
  await expect(page.getByText('In coda: 2 foto · costo 6 crediti', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Carica 2 foto' }).click();
  const list = page.getByRole('heading', { name: 'File selezionati' });
  await expect(list).toBeInViewport();
  await expect(page.getByRole('listitem', { name: 'scarpa-blu.jpg' })).toBeInViewport();
  await expect(page.getByRole('listitem', { name: 'scarpa-blu.jpg' })).toContainText(/Caricata|In coda per grafici/);
  await screenshots(page, 'upload-live-list');

  const phone = await browser.newContext({ baseURL, locale: 'it-IT', serviceWorkers: 'block', viewport: PHONE, hasTouch: true, isMobile: true });
  const phonePage = await phone.newPage();
  await uiLogin(phonePage, seller.email, PASSWORD);
  await expect(phonePage).toHaveURL(/\/dashboard$/);
  await phonePage.goto('/upload');
  await expect(phonePage.getByRole('button', { name: 'Tocca per scegliere le foto' })).toBeVisible();
  await expect(phonePage.getByText(/Trascina|dal computer/)).toHaveCount(0);
  await phonePage.screenshot({ path: test.info().outputPath('upload-phone.png') });
  await phone.close();
});

test("il link di reset scaduto non mostra l'errore in inglese del link", async ({ page }) => {
  await page.goto('/reset-password?error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired');
  await expect(page).toHaveURL(/\/forgot-password$/);
  await expect(page.getByRole('alert').filter({ hasText: 'Link non valido' })).toContainText('Il link per il reset della password è scaduto. Richiedi un nuovo link.');
  await expect(page.getByText(/Email link is invalid/)).toHaveCount(0);
});

test("risultati AI: nome SEO dalle parole del file e dai colori; Amazon sotto il minimo resta alla sua risoluzione e lo dice; '1 credito' negli ordini", async ({ page, request }) => {
  test.setTimeout(PROCESSING_TIMEOUT_MS + 60_000); // two AI jobs
  const seller = { email: uniqueEmail('e2e-nomi'), password: PASSWORD, role: 'client' as const };
  createUsers([seller]);
  const headers = await apiLogin(request, seller.email, PASSWORD);
  const named = await uploadPhoto(request, headers, 'IMG_0042 tazza colazione.jpg', productJpeg());
  const small = await request.post('/api/photos', {
    headers,
    multipart: { files: { name: 'banana.jpg', mimeType: 'image/jpeg', buffer: productJpeg(198, 198) }, job_type: 'background_removal', preset: 'amazon' },
  });
  expect(small.status(), await small.text()).toBe(201);
  const [smallPhoto] = (await small.json()) as { jobs: { id: string }[] }[];
  await waitForJob(request, headers, named, ['completed']);
  await waitForJob(request, headers, smallPhoto.jobs[0].id, ['completed']);

  await uiLogin(page, seller.email, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/photos');
  const seo = new RegExp(`^tazza-colazione-([a-z]+-)+${named.slice(0, 8)}\\.jpg$`);
  const card = page.locator('.photo-grid > article', { hasText: 'Originale: IMG_0042 tazza colazione.jpg' });
  await expect(card).toHaveAttribute('aria-label', seo);
  const download = page.waitForEvent('download');
  await card.getByRole('button', { name: 'Scarica', exact: true }).click();
  expect((await download).suggestedFilename()).toMatch(seo);

  const amazon = page.locator('.photo-grid > article', { hasText: 'Originale: banana.jpg' });
  await expect(amazon.getByRole('note').filter({ hasText: 'Risoluzione sotto il minimo Amazon: 1000 px sul lato lungo' })).toBeVisible();
  await screenshots(page, 'photos-seo-amazon');

  await page.goto('/orders');
  await expect(page.getByRole('main').getByText(/ 1 credito( speso| previsto)?$/).first()).toBeVisible();
  await expect(page.getByRole('main').getByText(/ 1 crediti\b/)).toHaveCount(0);
  await screenshots(page, 'orders');
});

test('dashboard del grafico: griglia compatta, nomi interi, statistiche piccole sul telefono, un messaggio alla volta mai sopra le azioni, storico Completati, nome SEO', async ({ page, request }) => {
  test.setTimeout(180_000); // two toasts run their course at each of two sizes
  const designer = { email: uniqueEmail('e2e-grafico'), password: PASSWORD, role: 'graphic' as const, first_name: 'Dario' };
  const seller = { email: uniqueEmail('e2e-cliente-grafico'), password: PASSWORD, role: 'client' as const };
  createUsers([designer, seller]);
  const headers = await apiLogin(request, seller.email, PASSWORD);
  const names = ['h060-borsa-pelle-nera-con-manico-lungo.jpg', 'h061-zaino-tela-verde-militare.jpg', 'h062-portafoglio-cuoio-marrone.jpg'];
  const ids: string[] = [];
  for (const name of names) ids.push(await uploadPhoto(request, headers, name, productJpeg(), 'background_removal_human'));
  for (const id of ids) await waitForJob(request, headers, id, ['pending_human']);

  await page.setViewportSize(PHONE);
  await uiLogin(page, designer.email, PASSWORD);
  await expect(page).toHaveURL(/\/graphics-dashboard$/);
  const first = page.getByRole('listitem', { name: names[0] });
  await expect(first).toBeVisible();
  const queue = page.getByRole('list', { name: 'Lavori' }).getByRole('listitem');
  // phones: the three counters take one short row; the queue starts on the first screen
  const stats = await page.getByRole('region', { name: 'Riepilogo lavori' }).boundingBox();
  expect(stats!.height).toBeLessThan(120);
  expect((await queue.first().boundingBox())!.y).toBeLessThan(PHONE.height - 200);
  // whole names, wrapped, never cut
  for (const name of names) {
    const title = page.getByRole('heading', { name, exact: true });
    await expect(title).toBeVisible();
    expect(await title.evaluate((el) => el.scrollWidth <= el.clientWidth && getComputedStyle(el).textOverflow !== 'ellipsis')).toBe(true);
  }
  await screenshots(page, 'designer-dashboard', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
  });

  // desktop: a grid, more than one job per row
  await page.setViewportSize(DESKTOP);
  const boxes = await Promise.all([queue.nth(0).boundingBox(), queue.nth(1).boundingBox()]);
  expect(Math.abs(boxes[0]!.y - boxes[1]!.y)).toBeLessThan(2);
  expect(boxes[1]!.x).toBeGreaterThan(boxes[0]!.x + boxes[0]!.width);

  await first.getByRole('button', { name: 'Assegna a me' }).click();
  await first.getByRole('button', { name: 'Inizia' }).click();
  await first.getByRole('button', { name: 'Completa' }).click();
  const dialog = page.getByRole('dialog', { name: 'Completa lavoro' });
  const complete = dialog.getByRole('button', { name: 'Completa lavoro' });
  const toasts = page.getByRole('region', { name: 'Messaggi' }).locator('.toast');
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await dialog.getByLabel('Foto elaborata').setInputFiles({ name: 'r.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') });
    await dialog.getByLabel('Foto elaborata').setInputFiles({ name: 'r.png', mimeType: 'image/png', buffer: Buffer.alloc(11 * 1024 * 1024) });
    await expect(toasts.first()).toBeVisible();
    // one at a time, never over the dialog's actions
    await expect(toasts).toHaveCount(1);
    expect(await overlap(toasts.first(), complete)).toBe(false);
    expect(await overlap(toasts.first(), dialog.getByRole('button', { name: 'Annulla' }))).toBe(false);
    await page.screenshot({ path: test.info().outputPath(`designer-dialog-toast-${size.width}.png`) });
    await expect(toasts).toHaveCount(0, { timeout: 15_000 });
  }
  await page.setViewportSize(DESKTOP);
  await dialog.getByLabel('Foto elaborata').setInputFiles({ name: 'risultato.png', mimeType: 'image/png', buffer: productJpeg() });
  await complete.click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('listitem', { name: names[0] })).toHaveCount(0);
  await page.getByRole('tab', { name: 'Completati' }).click();
  const done = page.getByRole('list', { name: 'Lavori completati' }).getByRole('listitem', { name: names[0] });
  await expect(done).toContainText('Completato il');
  await screenshots(page, 'designer-completed');

  // the seller downloads it under an SEO name made of the file name's words
  await page.context().clearCookies();
  await page.evaluate(() => localStorage.clear());
  await uiLogin(page, seller.email, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/photos');
  const seo = new RegExp(`^borsa-pelle-nera-con-manico-lungo-${ids[0].slice(0, 8)}\\.(jpg|png)$`);
  const card = page.locator('.photo-grid > article', { hasText: `Originale: ${names[0]}` });
  await expect(card).toHaveAttribute('aria-label', seo);
  const download = page.waitForEvent('download');
  await card.getByRole('button', { name: 'Scarica', exact: true }).click();
  expect((await download).suggestedFilename()).toMatch(seo);
});

test("admin: la colonna e-mail usa lo spazio, sul telefono un utente e un lavoro per scheda, niente da scorrere di lato", async ({ page, request }) => {
  const admin = { email: uniqueEmail('e2e-admin-tabella'), password: PASSWORD, role: 'admin' as const };
  const long = { email: uniqueEmail('e2e-venditrice-lunga'), password: PASSWORD, role: 'client' as const, first_name: 'Lucia' };
  createUsers([admin, long]);
  const headers = await apiLogin(request, long.email, PASSWORD);
  await uploadPhoto(request, headers, 'lampada.jpg', productJpeg(), 'background_removal_human');

  await page.setViewportSize(DESKTOP);
  await uiLogin(page, admin.email, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/admin-dashboard');
  await page.getByRole('tab', { name: 'Gestione utenti' }).click();
  await page.getByLabel('Cerca utenti').fill(long.email);
  const table = page.getByRole('table', { name: 'Utenti' });
  const cell = table.getByRole('rowheader', { name: long.email });
  await expect(cell).toBeVisible();
  const lines = () => cell.evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size;
  });
  // the address keeps its width: whole, or at most broken once before its '@'
  expect(await lines()).toBeLessThanOrEqual(2);
  expect((await cell.boundingBox())!.width).toBeGreaterThan(250);
  await expect(page.getByText('Scorri di lato per vedere tutte le colonne')).toHaveCount(0);
  await screenshots(page, 'admin-users', async () => {
    await expect(cell).toBeVisible();
  });

  // phones: one card per user, nothing to scroll sideways, every value labelled
  await page.setViewportSize(PHONE);
  const card = page.locator('.users-table-card');
  await expect.poll(() => card.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  await expect(table.locator('tr', { hasText: long.email }).locator('td[data-label="Crediti"]')).toBeVisible();

  // the jobs too are one card per job on the phone: every value on screen, no sideways scroll, no hint
  await page.getByRole('tab', { name: 'Lavori' }).click();
  await expect(page.getByRole('table', { name: 'Lavori' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Lavori' }).locator('td[data-label="Stato"]').first()).toBeVisible();
  await expect(page.getByText('Scorri di lato per vedere tutte le colonne')).toHaveCount(0);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await screenshots(page, 'admin-jobs');
});
