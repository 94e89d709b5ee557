import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { RESULTS_DIR } from './paths';
import { PROCESSING_TIMEOUT_MS, solidPng } from './helpers';

interface OutboxMail {
  links: string[];
}

/** Signs a new client up through the API and confirms the e-mailed link in this browser (its cookies). */
export async function newSeller(page: Page, baseURL: string, firstName = 'Sara'): Promise<string> {
  const email = `e2e-seller-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.it`;
  const signup = await page.request.post('/api/auth/signup', {
    data: { email, password: 'segreto123', first_name: firstName, last_name: 'Verdi' },
  });
  expect(signup.status()).toBe(201);
  const mails = (await (await page.request.get('/api/dev/mail', { params: { to: email } })).json()) as OutboxMail[];
  const link = mails[0].links[0];
  // the link points where the browser is (127.0.0.1:port), not at localhost:8000
  expect(new URL(link).origin).toBe(new URL(baseURL).origin);
  await page.goto(link);
  await expect(page).toHaveURL(/\/dashboard$/);
  return email;
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(RESULTS_DIR, `${name}-desktop.png`), fullPage: true });
  const size = page.viewportSize();
  await page.setViewportSize({ width: 375, height: 812 });
  await page.screenshot({ path: path.join(RESULTS_DIR, `${name}-375.png`), fullPage: true });
  if (size) await page.setViewportSize(size);
}

async function buy(page: Page, name: string): Promise<string> {
  await page.goto('/credits');
  await page.getByRole('listitem').filter({ hasText: name }).getByRole('button').click();
  await expect(page).toHaveURL(/\/dev\/checkout\/cs_test_local_/);
  await expect(page.getByText('MODALITÀ TEST — nessun addebito reale')).toBeVisible();
  return page.url();
}

/**
 * An abandoned checkout ends as 'Annullato' or 'Scaduto' instead of 'In attesa'
 * for ever; 'Acquisti recenti' counts only completed purchases; the pending-payments card verifies a
 * payment; after paying, the seller comes back to the same address, still signed in.
 */
test('pagamenti: annullato, scaduto, in sospeso con Verifica, poi pagato', async ({ page, baseURL }) => {
  await newSeller(page, baseURL!);
  const origin = new URL(baseURL!).origin;

  const canceled = await buy(page, 'Light');
  expect(new URL(canceled).origin).toBe(origin);
  await page.getByRole('button', { name: 'Annulla' }).click();
  await expect(page).toHaveURL(new RegExp(`^${origin}/dashboard`));
  await expect(page.getByRole('status').filter({ hasText: 'Pagamento Annullato' })).toBeVisible();

  await buy(page, 'Standard');
  await page.getByRole('button', { name: 'Simula scadenza' }).click();
  await expect(page).toHaveURL(new RegExp(`^${origin}/credits$`));

  const pendingUrl = await buy(page, 'Light');
  await page.goto('/credits');
  const pending = page.getByRole('region', { name: 'Pagamenti in sospeso' });
  await expect(pending.getByRole('listitem')).toHaveCount(1);
  await expect(pending.getByRole('button', { name: 'Verifica tutti' })).toBeVisible();
  await expect(page.getByRole('group', { name: 'Acquisti recenti' })).toContainText('0');
  await pending.getByRole('button', { name: 'Verifica', exact: true }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Pagamento non completato' })).toBeVisible();
  await pending.getByRole('button', { name: 'Verifica tutti' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Nessun pagamento completato' })).toBeVisible();
  await shoot(page, 'credits-pending');

  await page.goto('/orders');
  await expect(page.getByText('Annullato', { exact: true })).toHaveCount(1);
  await expect(page.getByText('Scaduto', { exact: true })).toHaveCount(1);
  await expect(page.getByText('In attesa', { exact: true })).toHaveCount(1);
  await shoot(page, 'orders-purchases');

  // pay the pending one: back on the same origin, signed in, 50 credits added
  await page.goto(pendingUrl);
  await page.getByRole('button', { name: 'Paga' }).click();
  await expect(page).toHaveURL(new RegExp(`^${origin}/dashboard`));
  await expect(page.getByText('Crediti disponibili:')).toHaveText('Crediti disponibili: 65');
  await page.goto('/credits');
  await expect(page.getByRole('group', { name: 'Acquisti recenti' })).toContainText('1');
  await expect(page.getByRole('region', { name: 'Pagamenti in sospeso' })).toHaveCount(0);
  await page.goto('/orders');
  await expect(page.getByText('In attesa', { exact: true })).toHaveCount(0);
});

/** A default brand and category saved on /profile prefill the upload form. */
test('marca e categoria predefinite dal profilo compilano il caricamento', async ({ page, baseURL }) => {
  await newSeller(page, baseURL!, 'Marta');
  await page.goto('/upload');
  await expect(page.getByLabel('Marca (facoltativa, per il nome SEO)')).toHaveValue('');

  await page.goto('/profile');
  const form = page.getByRole('form', { name: 'Modifica profilo' });
  await form.getByLabel('Marca predefinita').fill('Gelateria Aurora');
  await form.getByLabel('Categoria prodotto predefinita').fill('Gelato artigianale');
  await form.getByRole('button', { name: 'Salva modifiche' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Profilo aggiornato' })).toBeVisible();
  await shoot(page, 'profile-defaults');

  await page.reload();
  await expect(form.getByLabel('Marca predefinita')).toHaveValue('Gelateria Aurora');
  await page.goto('/upload');
  await expect(page.getByLabel('Marca (facoltativa, per il nome SEO)')).toHaveValue('Gelateria Aurora');
  await expect(page.getByLabel('Categoria prodotto (facoltativa)')).toHaveValue('Gelato artigianale');
});

/** A portrait photo's preview fills the card's box and comes from the stored WebP. */
test('le anteprime su /photos riempiono il riquadro e sono WebP piccole', async ({ page, baseURL }) => {
  await newSeller(page, baseURL!, 'Paola');
  await page.goto('/upload');
  // a portrait product photo (600×1000) drawn in the browser
  const png = await page.evaluate(async () => {
    const canvas = new OffscreenCanvas(600, 1000);
    const g = canvas.getContext('2d')!;
    g.fillStyle = '#d9d4cc';
    g.fillRect(0, 0, 600, 1000);
    g.fillStyle = '#b22222';
    g.fillRect(150, 150, 300, 700);
    const blob = await canvas.convertToBlob({ type: 'image/png' });
    return Array.from(new Uint8Array(await blob.arrayBuffer()));
  });
  await page.getByLabel('Seleziona foto').setInputFiles({ name: 'vaso-ritratto.png', mimeType: 'image/png', buffer: Buffer.from(png) });
  await page.getByRole('button', { name: 'Carica 1 foto' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Foto caricate' })).toBeVisible();

  const preview = page.waitForResponse((r) => r.url().includes('/thumbnail') && r.status() === 200);
  await page.goto('/photos');
  const response = await preview;
  expect(response.headers()['content-type']).toBe('image/webp');
  expect(response.headers()['cache-control']).toContain('max-age=86400');
  expect(response.headers()['etag']).toBeTruthy();

  // Measured on the card the seller keeps: the AI job finishes first (its result is a clean studio
  // shot, so it is not sent to a designer), and the preview swaps to the result while it does.
  test.setTimeout(PROCESSING_TIMEOUT_MS + 60_000);
  const card = page.getByRole('article').first();
  await expect(card.getByText('Completata', { exact: true })).toBeVisible({ timeout: PROCESSING_TIMEOUT_MS });
  await expect(card.getByText('Da verificare', { exact: true })).toHaveCount(0);

  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    const img = card.getByRole('img', { name: /^Anteprima di/ });
    await expect(img).toBeVisible();
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
    const cardBox = (await card.boundingBox())!;
    const imgBox = (await img.boundingBox())!;
    // the box spans the card's content width (padding 16 px each side) and is not a sliver
    expect(imgBox.width).toBeGreaterThanOrEqual(cardBox.width - 34);
    expect(imgBox.height).toBeGreaterThanOrEqual(170);
    const fit = await img.evaluate((el) => getComputedStyle(el).objectFit);
    expect(fit).toBe('contain');
    await page.screenshot({ path: path.join(RESULTS_DIR, `photos-thumbnails-${width === 375 ? '375' : 'desktop'}.png`), fullPage: true });
  }
});

/**
 * A photo queued for designers ('In coda per grafici') can be cancelled by its seller
 * until a designer starts it: 'Elimina' asks in the app's dialog, which says the reserved credits come
 * back; then the photo is gone and the 3 reserved credits are back (15).
 */
test('una foto in coda per i grafici si annulla con Elimina e i crediti tornano', async ({ page, baseURL }) => {
  const email = await newSeller(page, baseURL!, 'Chiara');
  const login = await page.request.post('/api/auth/login', { data: { email, password: 'segreto123' } });
  const auth = { Authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
  const credits = async () => ((await (await page.request.get('/api/me', { headers: auth })).json()) as { credits_remaining: number }).credits_remaining;
  const upload = await page.request.post('/api/photos', {
    headers: auth,
    multipart: {
      files: { name: 'borsa-da-rifinire.png', mimeType: 'image/png', buffer: solidPng(64, 48, [200, 40, 40]) },
      job_type: 'background_removal_human',
    },
  });
  expect(upload.status(), await upload.text()).toBe(201);
  await expect.poll(credits, { timeout: 30_000 }).toBe(12); // 3 credits reserved by the workflow

  await page.goto('/photos');
  const card = page.getByRole('article', { name: 'borsa-da-rifinire.png' });
  await expect(card.getByText('In coda per grafici')).toBeVisible({ timeout: 30_000 });
  await card.getByRole('button', { name: /^Elimina / }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('I crediti riservati ti verranno restituiti');
  await dialog.getByRole('button', { name: 'Elimina' }).click();
  await expect(page.getByText('Lavoro annullato: i crediti riservati ti sono stati restituiti.')).toBeVisible();
  await expect(card).toHaveCount(0);
  await expect.poll(credits).toBe(15);
});
