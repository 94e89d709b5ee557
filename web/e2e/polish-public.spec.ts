import { expect, test } from '@playwright/test';
import { emojiIn, screenshots } from './helpers';

/** Public pages: icons without emoji, the trial modal, robots/sitemap and code splitting. */

test('landing e /auth senza emoji: le icone sono SVG (lucide)', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByText('Trascina il cursore')).toBeVisible();
  expect(await emojiIn(page)).toEqual([]);
  await expect(page.locator('.feature-icon svg')).toHaveCount(4);
  await page.goto('/auth');
  await expect(page.getByRole('heading', { name: 'Benvenuto' })).toBeVisible();
  expect(await emojiIn(page)).toEqual([]);
});

test("'Prova gratuita': trigger visibile, controlli SPEC §5, mailto precompilato, Annulla", async ({ page }) => {
  await page.addInitScript(() => {
    // The mail client cannot open here: record the mailto link the modal follows.
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      if (this.href.startsWith('mailto:')) (window as unknown as { __mailto: string }).__mailto = this.href;
      else click.call(this);
    };
  });
  await page.goto('/');
  const trigger = page.getByRole('button', { name: 'Prova gratuita: 3 foto' });
  await expect(trigger).toBeVisible();
  await trigger.click();
  const dialog = page.getByRole('dialog', { name: 'Prova gratuita' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Nome')).toBeFocused();

  await dialog.getByRole('button', { name: 'Invia richiesta' }).click();
  await expect(dialog.getByText('Il nome è obbligatorio')).toBeVisible();
  await expect(dialog.getByText("L'email è obbligatoria")).toBeVisible();
  await dialog.getByLabel('Nome').fill('Anna Verdi');
  await dialog.getByLabel('Email').fill('anna@negozio');
  await dialog.getByLabel('Sito (facoltativo)').fill('non è un sito');
  await dialog.getByRole('button', { name: 'Invia richiesta' }).click();
  await expect(dialog.getByText('Inserisci un indirizzo email valido')).toBeVisible();
  await expect(dialog.getByText(/Inserisci un indirizzo web valido/)).toBeVisible();
  await screenshots(page, 'landing-trial-modal-errors');

  await dialog.getByLabel('Email').fill('anna@negozio.it');
  await dialog.getByLabel('Sito (facoltativo)').fill('www.negozio.it');
  await dialog.getByRole('button', { name: 'Invia richiesta' }).click();
  await expect(dialog).toBeHidden();
  const mailto = await page.evaluate(() => (window as unknown as { __mailto?: string }).__mailto ?? '');
  expect(mailto).toMatch(/^mailto:info@fotopronta\.it\?subject=/);
  const body = decodeURIComponent(new URL(mailto).searchParams.get('body') ?? '');
  expect(body).toContain('Nome: Anna Verdi');
  expect(body).toContain('Email: anna@negozio.it');
  expect(body).toContain('Sito: https://www.negozio.it/');

  await trigger.click();
  await expect(dialog).toBeVisible();
  await screenshots(page, 'landing-trial-modal');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(trigger).toBeFocused();
  await trigger.click();
  await dialog.getByRole('button', { name: 'Annulla' }).click();
  await expect(dialog).toBeHidden();
});

test('robots.txt e sitemap.xml veri, non la shell dell’app', async ({ request, baseURL }) => {
  const robots = await request.get('/robots.txt');
  expect(robots.status()).toBe(200);
  expect(robots.headers()['content-type']).toMatch(/^text\/plain/);
  const text = await robots.text();
  expect(text).toMatch(/^User-agent: \*$/m);
  expect(text).toContain(`Sitemap: ${baseURL}/sitemap.xml`);
  expect(text).not.toContain('<html');

  const sitemap = await request.get('/sitemap.xml');
  expect(sitemap.status()).toBe(200);
  expect(sitemap.headers()['content-type']).toMatch(/^(application|text)\/xml/);
  const xml = await sitemap.text();
  expect(xml).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
  for (const path of ['/', '/privacy-policy', '/terms-of-service', '/cookie-policy']) expect(xml).toContain(`<loc>${baseURL}${path}</loc>`);
});

test('la landing non scarica il codice delle pagine riservate (rotte lazy)', async ({ page }) => {
  const scripts: string[] = [];
  const encodings: string[] = [];
  page.on('response', (r) => {
    if (r.request().resourceType() !== 'script') return;
    scripts.push(r.url());
    encodings.push(r.headers()['content-encoding'] ?? 'none');
  });
  await page.goto('/', { waitUntil: 'networkidle' });
  await expect(page.getByText('Trascina il cursore')).toBeVisible();
  expect(scripts.length).toBeGreaterThan(0);
  let bytes = 0;
  for (const url of scripts) {
    const source = await (await page.request.get(url)).text();
    bytes += source.length;
    // Text that only the signed-in pages carry: dashboard, photos, upload, staff dashboards.
    for (const marker of ['Cosa vuoi processare oggi?', 'Foto Processate', 'Carica le tue foto', 'Bacheca lavori', 'Pannello di amministrazione']) {
      expect(source.includes(marker), `${url} contiene "${marker}"`).toBe(false);
    }
  }
  expect(bytes, `JavaScript della landing: ${scripts.join(', ')}`).toBeLessThan(420_000);
  // Compressed on the wire (dist/*.gz, written by scripts/compress-dist.mjs).
  expect(encodings[0]).toBe('gzip');

  // The signed-in pages still load on demand.
  const later: string[] = [];
  page.on('response', (r) => {
    if (r.request().resourceType() === 'script') later.push(r.url());
  });
  await page.goto('/privacy-policy');
  await expect(page.getByRole('link', { name: /Torna al sito/ })).toBeVisible();
  // the legal pages' own chunk (features/legal, named after the feature's folder)
  expect(later.some((u) => /\/assets\/legal-[\w-]+\.js$/.test(u))).toBe(true);
});
