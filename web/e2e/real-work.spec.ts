import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { PROCESSING_TIMEOUT_MS, solidPng } from './helpers';
import { RESULTS_DIR } from './paths';
import { ageCheckouts } from './stack-db';
import { apiLogin, createUsers, productJpeg, uiLogin, uniqueEmail, uploadPhoto, waitForJob } from './staff-helpers';

/**
 * What a day of real work still tripped on: 'Scarica selezionate' as one ZIP named like the
 * cards, the free rework of a designer's delivery, and a photo whose rework was rejected shown as the
 * delivered photo it is. Screenshots at 1366 and 375 px go to test-results/screens/real-work-*.png.
 */

const PASSWORD = 'segreto123';

/** Full-page screenshots at 1366 px and 375 px wide, for people to look at. */
async function shots(page: Page, name: string): Promise<void> {
  const original = page.viewportSize();
  for (const [label, width, height] of [
    ['1366', 1366, 900],
    ['375', 375, 812],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'screens', `real-work-${name}-${label}.png`), fullPage: true });
  }
  if (original) await page.setViewportSize(original);
}

/** The entry names of a ZIP file, read from its central directory (PKZIP APPNOTE §4.3.12). */
function zipNames(data: Buffer): string[] {
  const names: string[] = [];
  for (let i = data.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])) - 1; i >= 0; i--) {
    if (data.readUInt32LE(i) !== 0x02014b50) continue;
    const length = data.readUInt16LE(i + 28);
    names.unshift(data.subarray(i + 46, i + 46 + length).toString('utf8'));
  }
  return names;
}

for (const [label, width, height] of [
  ['1366', 1366, 900],
  ['375', 375, 812],
] as const) {
  test(`'Scarica selezionate' scarica un solo ZIP con i nomi delle schede (${label} px)`, async ({ page, request }) => {
    test.setTimeout(PROCESSING_TIMEOUT_MS + 60_000);
    await page.setViewportSize({ width, height });
    const seller = { email: uniqueEmail('e2e-zip'), password: PASSWORD, role: 'client' as const, first_name: 'Sara' };
    createUsers([seller]);
    const auth = await apiLogin(request, seller.email, PASSWORD);
    const jobs: string[] = [];
    for (const name of ['tazza-blu.jpg', 'vaso-rosso.jpg', 'lampada.jpg']) jobs.push(await uploadPhoto(request, auth, name, productJpeg(200, 150)));
    for (const job of jobs) await waitForJob(request, auth, job, ['completed']);

    await uiLogin(page, seller.email, PASSWORD);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/photos');
    const cards = page.getByRole('article');
    await expect(cards).toHaveCount(3);
    const titles = (await page.locator('.photo-title').allTextContents()).map((t) => t.trim().replace(/\.[a-z0-9]+$/i, ''));

    await page.getByRole('button', { name: 'Seleziona completate' }).click();
    let downloads = 0;
    page.on('download', () => downloads++);
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Scarica selezionate (3)' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^fotopronta-foto-.*\.zip$/);
    const names = zipNames(readFileSync(await download.path()));
    expect(names).toHaveLength(3);
    expect([...names].map((n) => n.replace(/\.jpg$/, '')).sort()).toEqual([...titles].sort());
    await page.waitForTimeout(1500); // no second download follows (the old button started one per photo)
    expect(downloads).toBe(1);
  });
}

test('revisione gratuita per il lavoro di un grafico; dopo una revisione rifiutata la foto resta consegnata', async ({ browser, request }) => {
  test.setTimeout(240_000);
  const seller = { email: uniqueEmail('e2e-revisione'), password: PASSWORD, role: 'client' as const, first_name: 'Sara' };
  const designer = { email: uniqueEmail('e2e-grafico'), password: PASSWORD, role: 'graphic' as const, first_name: 'Marco', last_name: 'Neri' };
  createUsers([seller, designer]);
  const sellerAuth = await apiLogin(request, seller.email, PASSWORD);
  const designerAuth = await apiLogin(request, designer.email, PASSWORD);
  const paid = await uploadPhoto(request, sellerAuth, 'borsa-pelle.jpg', productJpeg(320, 240), 'background_removal_human');
  await waitForJob(request, sellerAuth, paid, ['pending_human']);
  for (const step of ['assign-to-me', 'start']) {
    const resp = await request.post(`/api/designer/jobs/${paid}/${step}`, { headers: designerAuth });
    expect(resp.status(), await resp.text()).toBe(200);
  }
  const done = await request.post(`/api/designer/jobs/${paid}/complete`, {
    headers: designerAuth,
    multipart: { file: { name: 'borsa.png', mimeType: 'image/png', buffer: solidPng(320, 240, [250, 250, 250]) }, notes: 'Sfondo bianco pulito' },
  });
  expect(done.status(), await done.text()).toBe(200);

  const context = await browser.newContext();
  const page = await context.newPage();
  await uiLogin(page, seller.email, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/photos');
  const card = page.getByRole('article').first();
  await expect(card.getByText('Processata da grafico', { exact: true })).toBeVisible();
  await expect(card.getByRole('button', { name: 'Revisione gratuita' })).toBeVisible();
  await shots(page, 'designer-card-rework');

  await card.getByRole('button', { name: 'Revisione gratuita' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revisione gratuita' });
  await dialog.getByLabel('Cosa vorresti migliorare in questa foto? (facoltativo)').fill('Ombra più morbida sotto la borsa');
  await dialog.getByRole('button', { name: 'Richiedi revisione' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(card.getByText('In coda per grafici', { exact: true })).toBeVisible();
  await expect(card.getByRole('button', { name: 'Revisione gratuita' })).toHaveCount(0); // once per photo
  await expect(card.getByRole('button', { name: 'Scarica', exact: true })).toBeVisible(); // the delivery stays

  const { items } = (await (await request.get('/api/photos', { headers: sellerAuth })).json()) as { items: { jobs: { id: string; status: string }[] }[] };
  const rework = items[0].jobs.find((j) => j.id !== paid)?.id ?? '';
  await waitForJob(request, sellerAuth, rework, ['pending_human']);
  for (const step of ['assign-to-me', 'start']) {
    const resp = await request.post(`/api/designer/jobs/${rework}/${step}`, { headers: designerAuth });
    expect(resp.status(), await resp.text()).toBe(200);
  }
  const reason = "L'ombra è già quella richiesta dal marketplace";
  const rejected = await request.post(`/api/designer/jobs/${rework}/reject`, { headers: designerAuth, data: { notes: reason } });
  expect(rejected.status(), await rejected.text()).toBe(200);

  await page.goto('/photos');
  await expect(card.getByText('Processata da grafico', { exact: true })).toBeVisible();
  await expect(card.getByText('Rifiutata', { exact: true })).toHaveCount(0);
  const note = card.getByRole('note').filter({ hasText: 'Revisione gratuita non eseguita' });
  await expect(note).toContainText(`«${reason}»`);
  await expect(note).toContainText('Il risultato consegnato resta tuo');
  await expect(card.getByText('Nota del grafico: Sfondo bianco pulito')).toBeVisible();
  await expect(page.getByText(/1 foto · 1 completate/)).toBeVisible();
  await expect(page.getByText(/rifiutat[ae] dai grafici/)).toHaveCount(0);
  const downloading = page.waitForEvent('download');
  await card.getByRole('button', { name: 'Scarica', exact: true }).click();
  expect((await downloading).suggestedFilename()).toMatch(/\.png$/);
  await shots(page, 'card-after-rejected-rework');

  await page.goto('/orders');
  await expect(page.getByText(/1\/1 foto consegnat/)).toBeVisible();
  await expect(page.getByText(/rifiutata dal grafico/)).toHaveCount(0);
  await context.close();
});

test('registrata sul portatile, confermata dal telefono: la pagina spiega, il codice fa accedere sul portatile', async ({ browser }) => {
  const email = uniqueEmail('e2e-telefono');
  const laptopContext = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const laptop = await laptopContext.newPage();
  await laptop.goto('/login'); // the address people type is the sign-in page too
  await expect(laptop).toHaveURL(/\/auth$/);
  await laptop.getByRole('tab', { name: 'Registrati' }).click();
  const form = laptop.getByRole('form', { name: 'Registrati' });
  await form.getByLabel('Nome', { exact: true }).fill('Sara');
  await form.getByLabel('Email', { exact: true }).fill(email);
  await form.getByLabel('Password', { exact: true }).fill('portatile123');
  await form.getByRole('button', { name: 'Crea Account' }).click();
  // on the page, not only in a toast: where the link went and the code for another device
  const done = laptop.getByRole('status', { name: 'Controlla la tua email' });
  await expect(done).toContainText(email);
  const code = ((await done.locator('.pairing-code').textContent()) ?? '').replace(/\s+/g, '');
  expect(code).toMatch(/^\d{6}$/);
  await expect(laptop.getByRole('form', { name: 'Accedi' }).getByLabel('Email', { exact: true })).toHaveValue(email);
  await laptop.screenshot({ path: path.join(RESULTS_DIR, 'screens', 'real-work-signup-done-1366.png'), fullPage: true });

  let link = '';
  await expect
    .poll(async () => {
      const mails = (await (await laptop.request.get('/api/dev/mail', { params: { to: email } })).json()) as { links: string[] }[];
      link = mails[0]?.links.find((l) => l.includes('/auth/callback')) ?? '';
      return link;
    })
    .toContain('type=signup');

  // the phone: another browser, 375 px
  const phoneContext = await browser.newContext({ viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true });
  const phone = await phoneContext.newPage();
  await phone.goto(link);
  await expect(phone.getByRole('heading', { name: 'Email confermata' })).toBeVisible();
  await expect(phone.getByText('Il tuo indirizzo email è confermato.')).toBeVisible();
  await expect(phone.getByText(/browser diverso da quello in cui è stato creato l'account/)).toBeVisible();
  await shots(phone, 'confirmed-in-another-browser');

  // before the code: the laptop is told what to do, in Italian, not "Email o password non corretti"
  const login = laptop.getByRole('form', { name: 'Accedi' });
  await login.getByLabel('Password', { exact: true }).fill('portatile123');
  await login.getByRole('button', { name: 'Accedi' }).click();
  await expect(laptop.getByRole('alert').filter({ hasText: 'codice di 6 cifre' })).toBeVisible();
  await expect(laptop.getByText('Email o password non corretti')).toHaveCount(0);

  await phone.getByLabel('Codice di 6 cifre mostrato dopo la registrazione').fill(code);
  await phone.getByRole('button', { name: 'Conferma con il codice' }).click();
  await expect(phone).toHaveURL(/\/dashboard$/);

  await login.getByRole('button', { name: 'Accedi' }).click();
  await expect(laptop).toHaveURL(/\/dashboard$/);
  await laptopContext.close();
  await phoneContext.close();
});

for (const [label, width, height] of [
  ['1366', 1366, 900],
  ['375', 375, 812],
] as const) {
  test(`un file di testo rinominato .jpg è indicato appena scelto e non entra nel costo (${label} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const seller = { email: uniqueEmail('e2e-contenuto'), password: PASSWORD, role: 'client' as const, first_name: 'Sara' };
    createUsers([seller]);
    await uiLogin(page, seller.email, PASSWORD);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/upload');
    await expect(page.getByRole('button', { name: 'Carica 0 foto' })).toBeVisible();
    await page.getByLabel('Seleziona foto').setInputFiles([
      { name: 'scarpa-rossa.jpg', mimeType: 'image/jpeg', buffer: productJpeg(320, 240) },
      { name: 'appunti.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('non sono una foto, solo testo rinominato') },
    ]);
    await expect(page.getByText('appunti.jpg: Solo le immagini sono supportate')).toBeVisible();
    const list = page.getByRole('region', { name: 'File selezionati' });
    const bad = list.getByRole('listitem', { name: 'appunti.jpg' });
    await expect(bad).toContainText('Non caricato');
    await expect(bad).not.toContainText('In coda');
    await expect(page.getByText(/In coda: 1 foto · costo 1 credito/)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Carica 1 foto' })).toBeVisible();
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'screens', `real-work-upload-renamed-text-${label}.png`), fullPage: true });
  });
}

for (const [label, width, height] of [
  ['1366', 1366, 900],
  ['375', 375, 812],
] as const) {
  test(`il motivo del rifiuto va scritto a parole e il cliente lo legge in una frase (${label} px)`, async ({ browser, request }) => {
    test.setTimeout(120_000);
    const seller = { email: uniqueEmail('e2e-motivo'), password: PASSWORD, role: 'client' as const, first_name: 'Sara' };
    const designer = { email: uniqueEmail('e2e-grafica-motivo'), password: PASSWORD, role: 'graphic' as const, first_name: 'Giulia', last_name: 'Neri' };
    createUsers([seller, designer]);
    const sellerAuth = await apiLogin(request, seller.email, PASSWORD);
    const designerAuth = await apiLogin(request, designer.email, PASSWORD);
    const job = await uploadPhoto(request, sellerAuth, 'sfocata.jpg', productJpeg(320, 240), 'background_removal_human');
    await waitForJob(request, sellerAuth, job, ['pending_human']);
    for (const step of ['assign-to-me', 'start']) {
      const resp = await request.post(`/api/designer/jobs/${job}/${step}`, { headers: designerAuth });
      expect(resp.status(), await resp.text()).toBe(200);
    }
    // the server refuses nonsense whatever the client
    const nonsense = await request.post(`/api/designer/jobs/${job}/reject`, { headers: designerAuth, data: { notes: '__main__' } });
    expect(nonsense.status()).toBe(400);
    expect(((await nonsense.json()) as { code: string }).code).toBe('reason_without_words');

    const designerContext = await browser.newContext({ viewport: { width, height } });
    const page = await designerContext.newPage();
    await uiLogin(page, designer.email, PASSWORD);
    await expect(page).toHaveURL(/\/graphics-dashboard$/);
    await page.getByRole('button', { name: 'Rifiuta' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Rifiuta lavoro' });
    const field = dialog.getByLabel('Motivo del rifiuto (obbligatorio)');
    for (const text of ['__main__', '999999999999']) {
      await field.fill(text);
      await dialog.getByRole('button', { name: 'Rifiuta lavoro' }).click();
      await expect(dialog.getByRole('alert')).toContainText('Scrivi il motivo del rifiuto a parole');
    }
    const reason = 'La foto è troppo sfocata per scontornare il prodotto.';
    await field.fill(reason);
    await dialog.getByRole('button', { name: 'Rifiuta lavoro' }).click();
    await page.getByRole('dialog', { name: 'Confermi il rifiuto?' }).getByRole('button', { name: 'Conferma rifiuto' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Lavoro rifiutato' })).toBeVisible();
    await designerContext.close();

    const sellerContext = await browser.newContext({ viewport: { width, height } });
    const sellerPage = await sellerContext.newPage();
    await uiLogin(sellerPage, seller.email, PASSWORD);
    await expect(sellerPage).toHaveURL(/\/dashboard$/);
    await sellerPage.goto('/photos');
    const card = sellerPage.getByRole('article').first();
    await expect(card).toContainText('Il team grafico non ha potuto lavorare questa foto. Motivo: «La foto è troppo sfocata per scontornare il prodotto».');
    await expect(card).toContainText('I crediti riservati ti sono stati restituiti.');
    await sellerPage.screenshot({ path: path.join(RESULTS_DIR, 'screens', `real-work-rejected-reason-${label}.png`), fullPage: true });
    await sellerContext.close();
  });
}

test("l'admin legge i lavori a 375 px come schede e la cronologia con un solo formato di data, ora italiana", async ({ browser, request }) => {
  test.setTimeout(PROCESSING_TIMEOUT_MS + 60_000);
  const admin = { email: uniqueEmail('e2e-admin-schede'), password: PASSWORD, role: 'admin' as const, first_name: 'Ada' };
  const seller = { email: uniqueEmail('e2e-venditore-schede'), password: PASSWORD, role: 'client' as const };
  createUsers([admin, seller]);
  const headers = await apiLogin(request, seller.email, PASSWORD);
  const jobId = await uploadPhoto(request, headers, 'tazza-verde.jpg', productJpeg());
  await waitForJob(request, headers, jobId, ['completed']);

  // a browser set to New York still reads Italian time
  const context = await browser.newContext({ viewport: { width: 375, height: 812 }, timezoneId: 'America/New_York' });
  const page = await context.newPage();
  await uiLogin(page, admin.email, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/admin-dashboard');
  await page.getByRole('tab', { name: 'Lavori' }).click();
  await page.getByLabel('Cerca lavori').fill(seller.email);
  const row = page.getByRole('row', { name: /tazza-verde\.jpg/ });
  await expect(row).toBeVisible();
  // every value of the row within the screen: nothing behind a sideways scroll
  for (const label of ['Stato', 'Creato', 'Concluso', 'Cronologia']) {
    const cell = row.locator(`td[data-label="${label}"]`);
    await expect(cell).toBeVisible();
    const box = await cell.boundingBox();
    expect(box && box.x + box.width, label).toBeLessThanOrEqual(375);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await shots(page, 'admin-jobs');

  const created = (await row.locator('td[data-label="Creato"] time').textContent()) ?? '';
  const dateTime = /^\d{1,2} [a-z]{3} \d{4}, \d{2}:\d{2}$/;
  expect(created).toMatch(dateTime);
  const { items } = (await (await request.get('/api/photos', { headers })).json()) as { items: { jobs: { id: string; created_at: string }[] }[] };
  const createdAt = items[0].jobs[0].created_at;
  const rome = new Intl.DateTimeFormat('it-IT', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'Europe/Rome' }).format(new Date(createdAt));
  expect(created.endsWith(rome)).toBe(true);

  await row.getByRole('button', { name: 'Cronologia tazza-verde.jpg' }).click();
  const timeline = page.getByRole('region', { name: 'Cronologia tazza-verde.jpg' });
  const waiting = timeline.getByRole('listitem').filter({ hasText: 'Attesa prima della cancellazione dei file' });
  await expect(waiting).toContainText(/prevista il \d{1,2} [a-z]{3} \d{4}, \d{2}:\d{2}/);
  for (const time of await timeline.locator('time').allTextContents()) expect(time.trim()).toMatch(dateTime);
  await context.close();
});

for (const [label, width, height] of [
  ['1366', 1366, 900],
  ['375', 375, 812],
] as const) {
  test(`un pagamento avviato e abbandonato non resta 'In attesa' per sempre (${label} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const seller = { email: uniqueEmail('e2e-abbandono'), password: PASSWORD, role: 'client' as const, first_name: 'Sara' };
    createUsers([seller]);
    await uiLogin(page, seller.email, PASSWORD);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/credits');
    await page.getByRole('listitem').filter({ hasText: 'Light' }).getByRole('button').click();
    await expect(page).toHaveURL(/\/dev\/checkout\//);
    await page.goto('/orders'); // the seller leaves the checkout page
    await expect(page.getByText('In attesa', { exact: true })).toHaveCount(1);
    ageCheckouts(seller.email, 60); // an hour later: past the checkout session's life (30 min)
    await page.reload();
    await expect(page.getByText('Scaduto', { exact: true })).toHaveCount(1);
    await expect(page.getByText('In attesa', { exact: true })).toHaveCount(0);
    await page.screenshot({ path: path.join(RESULTS_DIR, 'screens', `real-work-orders-abandoned-${label}.png`), fullPage: true });
  });
}
