import path from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { PROCESSING_TIMEOUT_MS } from './helpers';
import { RESULTS_DIR } from './paths';
import { setReview } from './stack-db';
import { apiLogin, createUsers, productJpeg, uiLogin, uniqueEmail, uploadPhoto, waitForJob } from './staff-helpers';

/**
 * A day of real work as a seller, a designer and an admin: a batch with a bad file, the designer's note
 * to the client, a rejection with its reason, counters and orders that tell what happened, the admin's
 * timeline and review filter, and staff accounts that are not sellers.
 */

const PASSWORD = 'segreto123';
const NOTE = 'Riflesso rimosso dal vetro, colori ritoccati';
const REASON = 'La foto è troppo sfocata per scontornare il prodotto';

/** Saves full-page screenshots at 1366 px and 375 px wide, for people to look at. */
async function shots(page: Page, name: string): Promise<void> {
  const original = page.viewportSize();
  for (const [label, width, height] of [
    ['1366', 1366, 900],
    ['375', 375, 812],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.evaluate(() => window.scrollTo(0, 0)); // a full-page shot of a scrolled page repeats the sticky header
    await page.waitForTimeout(300); // layout settles (sidebar, grids)
    await page.screenshot({ path: path.join(RESULTS_DIR, 'screens', `work-day-${name}-${label}.png`), fullPage: true });
  }
  if (original) await page.setViewportSize(original);
}

async function signedIn(browser: Browser, email: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await uiLogin(page, email, PASSWORD);
  await expect(page).not.toHaveURL(/\/auth/);
  return page;
}

test('un file non valido in un gruppo: le foto buone si caricano, quello cattivo è indicato per nome con il motivo', async ({ page }) => {
  test.setTimeout(PROCESSING_TIMEOUT_MS + 60_000);
  const seller = { email: uniqueEmail('e2e-lotto'), password: PASSWORD, role: 'client' as const, first_name: 'Sara' };
  createUsers([seller]);
  await uiLogin(page, seller.email, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/upload');
  await expect(page.getByRole('button', { name: 'Carica 0 foto' })).toBeVisible();

  await page.getByLabel('Seleziona foto').setInputFiles([
    { name: 'scarpa-rossa.jpg', mimeType: 'image/jpeg', buffer: productJpeg(320, 240) },
    { name: 'appunti.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('non sono una foto, solo testo rinominato') },
    { name: 'listino.txt', mimeType: 'text/plain', buffer: Buffer.from('prezzi') },
  ]);
  // a non-image, and a text file renamed .jpg (by its content), are named at once and never sent
  await expect(page.getByText('appunti.jpg, listino.txt: Solo le immagini sono supportate')).toBeVisible();
  const list = page.getByRole('region', { name: 'File selezionati' });
  await expect(list.getByRole('listitem', { name: 'listino.txt' })).toContainText('Solo le immagini sono supportate');
  await page.getByRole('button', { name: 'Carica 1 foto' }).click();

  const bad = list.getByRole('listitem', { name: 'appunti.jpg' });
  await expect(bad).toContainText('Solo le immagini sono supportate');
  await expect(bad.getByRole('button', { name: 'Riprova' })).toHaveCount(0);
  const good = list.getByRole('listitem', { name: 'scarpa-rossa.jpg' });
  await expect(good).not.toContainText('Errore');
  await expect(good.getByText('Completata', { exact: true })).toBeVisible({ timeout: PROCESSING_TIMEOUT_MS });
  await shots(page, 'upload-mixed-batch');

  // one order of one photo, one credit: nothing charged for the refused files
  await page.goto('/orders');
  await expect(page.getByText(/1\/1 foto consegnate · 1 credito speso/)).toBeVisible();
});

test('la nota del grafico arriva al cliente, il rifiuto chiede un motivo, contatori e ordini dicono cosa è successo', async ({ browser, request }) => {
  test.setTimeout(240_000); // three accounts' worth of work in one story, on a shared 2-core machine
  const tag = Date.now().toString(36);
  const seller = { email: uniqueEmail('e2e-cliente'), password: PASSWORD, role: 'client' as const, first_name: 'Sara' };
  const designer = { email: uniqueEmail('e2e-grafica'), password: PASSWORD, role: 'graphic' as const, first_name: 'Giulia', last_name: 'Neri' };
  createUsers([seller, designer]);
  const headers = await apiLogin(request, seller.email, PASSWORD);
  const names = { done: `vetrina-${tag}.jpg`, rejected: `sfocata-${tag}.jpg`, waiting: `attesa-${tag}.jpg` };
  const jobs: Record<string, string> = {};
  for (const [key, name] of Object.entries(names)) jobs[key] = await uploadPhoto(request, headers, name, productJpeg(300, 400), 'background_removal_human');
  for (const id of Object.values(jobs)) await waitForJob(request, headers, id, ['pending_human']);

  // the designer delivers one with a note and rejects another, which needs a reason and a confirmation
  const desk = await signedIn(browser, designer.email);
  await expect(desk).toHaveURL(/\/graphics-dashboard$/);
  for (const name of [names.done, names.rejected]) {
    const card = desk.getByRole('listitem', { name });
    await card.getByRole('button', { name: 'Assegna a me' }).click();
    await card.getByRole('button', { name: 'Inizia' }).click();
    await expect(card.getByRole('button', { name: 'Completa' })).toBeVisible();
  }
  await desk.getByRole('listitem', { name: names.done }).getByRole('button', { name: 'Completa' }).click();
  const complete = desk.getByRole('dialog', { name: 'Completa lavoro' });
  await complete.getByLabel('Foto elaborata').setInputFiles({ name: 'risultato.jpg', mimeType: 'image/jpeg', buffer: productJpeg(300, 400) });
  await complete.getByLabel('Note per il cliente (facoltative)').fill(NOTE);
  await complete.getByRole('button', { name: 'Completa lavoro' }).click();
  await expect(complete).toHaveCount(0);

  await desk.getByRole('listitem', { name: names.rejected }).getByRole('button', { name: 'Rifiuta' }).click();
  const reject = desk.getByRole('dialog', { name: 'Rifiuta lavoro' });
  await reject.getByRole('button', { name: 'Rifiuta lavoro' }).click();
  await expect(reject.getByRole('alert')).toContainText('Scrivi il motivo del rifiuto');
  await reject.getByLabel('Motivo del rifiuto (obbligatorio)').fill(REASON);
  await reject.getByRole('button', { name: 'Rifiuta lavoro' }).click();
  const confirm = desk.getByRole('dialog', { name: 'Confermi il rifiuto?' });
  await expect(confirm).toContainText(REASON);
  await shots(desk, 'designer-reject-confirm');
  await confirm.getByRole('button', { name: 'Conferma rifiuto' }).click();
  await expect(confirm).toHaveCount(0);
  await expect(desk.getByRole('listitem', { name: names.rejected })).toHaveCount(0);
  await shots(desk, 'designer-dashboard');
  await desk.context().close();

  // the seller: the note on the card, in the bell and in the e-mail; the reason on the rejected card
  const shop = await signedIn(browser, seller.email);
  await expect(shop.getByRole('group', { name: 'In Coda' })).toContainText('1'); // only the one waiting for a designer
  await shots(shop, 'dashboard');
  await shop.goto('/photos');
  // the delivered card is titled by the result's SEO name; it still shows the original file name
  const delivered = shop.getByRole('article').filter({ hasText: names.done });
  await expect(delivered.getByRole('note').filter({ hasText: 'Nota del grafico:' })).toContainText(NOTE);
  const refused = shop.getByRole('article', { name: names.rejected });
  await expect(refused).toContainText(`Il team grafico non ha potuto lavorare questa foto. Motivo: «${REASON}».`);
  await expect(refused).toContainText('I crediti riservati ti sono stati restituiti.');
  const summary = shop.locator('.page-header p[aria-live]');
  await expect(summary).toContainText('1 in coda per i grafici');
  await expect(summary).toContainText('1 rifiutata dai grafici');
  await shots(shop, 'photos-note-and-rejection');
  await shop.getByRole('button', { name: /^Notifiche/ }).click();
  const panel = shop.getByRole('dialog', { name: 'Notifiche' });
  await expect(panel.getByText(`Nota del grafico: ${NOTE}`)).toBeVisible();
  await shots(shop, 'photos-notification-with-note');
  await shop.keyboard.press('Escape');
  const mails = (await (await request.get('/api/dev/mail', { params: { to: seller.email } })).json()) as { subject: string; text: string }[];
  const ready = mails.find((m) => m.subject === `Foto pronta: ${names.done}`);
  expect(ready?.text).toContain(NOTE);

  // /orders: each batch's outcome, the credits really spent, no download without a delivered photo
  await shop.goto('/orders');
  const cards = shop.locator('.order-card');
  const rejectedOrder = cards.filter({ hasText: 'Nessuna foto consegnata' });
  await expect(rejectedOrder).toHaveCount(1);
  await expect(rejectedOrder).toContainText('0/1 foto consegnate · 0 crediti spesi · 3 restituiti');
  await expect(rejectedOrder).toContainText('1 rifiutata dal grafico');
  await expect(rejectedOrder.getByRole('button', { name: 'Scarica' })).toHaveCount(0);
  await rejectedOrder.getByRole('button', { name: 'Dettagli' }).click();
  await expect(rejectedOrder.getByRole('list', { name: "Foto dell'ordine" })).toContainText(`Rifiutata: ${REASON} · crediti restituiti`);
  const deliveredOrder = cards.filter({ hasText: '1/1 foto consegnate · 3 crediti spesi' });
  await expect(deliveredOrder.getByRole('button', { name: 'Scarica' })).toBeVisible();
  await expect(cards.filter({ hasText: '3 crediti previsti' })).toHaveCount(1); // still with the designers
  await shots(shop, 'orders-outcomes');
  await shop.context().close();
});

test("l'admin: cronologia di un lavoro consegnato in un riquadro sopra la tabella, filtro dei risultati da verificare, team senza email doppie", async ({ page, request }) => {
  const admin = { email: uniqueEmail('e2e-admin'), password: PASSWORD, role: 'admin' as const, first_name: 'Ada' };
  const seller = { email: uniqueEmail('e2e-dubbi'), password: PASSWORD, role: 'client' as const };
  const unnamed = { email: uniqueEmail('e2e-senza-nome'), password: PASSWORD, role: 'graphic' as const };
  createUsers([admin, seller, unnamed]);
  const headers = await apiLogin(request, seller.email, PASSWORD);
  const jobId = await uploadPhoto(request, headers, 'lampada-dubbia.jpg', productJpeg());
  await waitForJob(request, headers, jobId, ['completed']);
  setReview(jobId, 0.41, true);

  await uiLogin(page, admin.email, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/admin-dashboard');
  const flagged = page.getByRole('listitem').filter({ hasText: 'Risultati AI da verificare' });
  await flagged.getByRole('button', { name: 'Vedi i lavori: Risultati AI da verificare' }).click();
  await expect(page.getByRole('tab', { name: 'Lavori' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByLabel('Stato')).toHaveValue('needs_review');
  await page.getByLabel('Cerca lavori').fill(seller.email);
  const row = page.getByRole('row', { name: /lampada-dubbia\.jpg/ });
  await expect(row).toBeVisible();
  await expect(page.getByText('Pagina 1 di 1 · 1 risultato')).toBeVisible();
  await shots(page, 'admin-jobs-needs-review');

  await row.getByRole('button', { name: 'Cronologia lampada-dubbia.jpg' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cronologia di lampada-dubbia.jpg' });
  await expect(dialog).toBeInViewport();
  await expect(dialog.getByText(/^Consegnato — file conservati fino al \d{1,2} [a-z]+ \d{4}$/)).toBeVisible();
  await expect(dialog.getByText('Flusso in corso')).toHaveCount(0);
  await shots(page, 'admin-job-timeline-dialog');
  await dialog.getByRole('button', { name: 'Chiudi' }).first().click();
  await expect(dialog).toHaveCount(0);

  await page.getByRole('tab', { name: 'Team grafici' }).click();
  const designerRow = page.getByRole('listitem', { name: unnamed.email });
  await expect(designerRow).toBeVisible();
  expect((await designerRow.locator('.designer-row').innerText()).split(unnamed.email).length - 1).toBe(1);
  await shots(page, 'admin-team');
  await page.getByRole('tab', { name: 'Gestione utenti' }).click();
  await page.getByLabel('Cerca utenti').fill(unnamed.email);
  await expect(page.getByRole('table', { name: 'Utenti' }).locator('tbody tr')).toHaveCount(1);
  await shots(page, 'admin-users');
});

test('gli account dello staff non hanno crediti da venditore né pagine da venditore', async ({ page, request }) => {
  const designer = { email: uniqueEmail('e2e-staff'), password: PASSWORD, role: 'graphic' as const, first_name: 'Marco' };
  const admin = { email: uniqueEmail('e2e-staff-admin'), password: PASSWORD, role: 'admin' as const };
  createUsers([designer, admin]);
  for (const who of [designer, admin]) {
    const auth = await apiLogin(request, who.email, PASSWORD);
    const me = (await (await request.get('/api/me', { headers: auth })).json()) as { credits_remaining: number };
    expect(me.credits_remaining).toBe(0);
  }
  const auth = await apiLogin(request, designer.email, PASSWORD);
  const upload = await request.post('/api/photos', {
    headers: auth,
    multipart: { files: { name: 'x.jpg', mimeType: 'image/jpeg', buffer: productJpeg() }, job_type: 'background_removal' },
  });
  expect(upload.status()).toBe(403);
  expect((await request.get('/api/orders', { headers: auth })).status()).toBe(403);

  await uiLogin(page, designer.email, PASSWORD);
  await expect(page).toHaveURL(/\/graphics-dashboard$/);
  for (const url of ['/upload', '/photos', '/orders', '/credits', '/dashboard']) {
    await page.goto(url);
    await expect(page.getByText('Questa pagina è riservata ai clienti')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Carica le tue foto' })).toHaveCount(0);
  }
  await page.getByRole('button', { name: 'Torna alla Dashboard' }).click();
  await expect(page).toHaveURL(/\/graphics-dashboard$/);
});
