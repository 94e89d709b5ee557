import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { PROCESSING_TIMEOUT_MS } from './helpers';
import { PHOTOS_DIR, RESULTS_DIR } from './paths';

/** Real photos from ../shared/photos/nomask/ (read in place, never copied into the repository). */
const PHOTOS = ['lamp2_meitu_1.jpg', 'Banana_Iconic.jpg'].map((name) => path.join(PHOTOS_DIR, name));

/** Scenario c: upload two photos, wait for 'Completata' on /photos, download a JPEG. */
test('carica due foto, le vede completate e scarica un JPEG', async ({ page }) => {
  test.skip(!PHOTOS.every((p) => fs.existsSync(p)), `foto reali assenti in ${PHOTOS_DIR}: test saltato`);
  test.setTimeout(PROCESSING_TIMEOUT_MS + 60_000);

  await page.goto('/upload');
  await expect(page.getByRole('heading', { name: 'Carica le tue foto' })).toBeVisible();
  await page.getByLabel('Seleziona foto').setInputFiles(PHOTOS);
  for (const file of PHOTOS) await expect(page.getByRole('listitem', { name: path.basename(file) })).toBeVisible();
  await page.getByRole('button', { name: 'Carica 2 foto' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Foto caricate' })).toBeVisible();

  await page.goto('/photos');
  await expect(page.getByRole('heading', { name: 'Foto Processate' })).toBeVisible();
  const cards = page.getByRole('article');
  await expect(cards).toHaveCount(2);
  // The page polls /api/photos every 3 s while a job is unfinished; stop early if one fails.
  const done = page.getByText('Completata', { exact: true });
  const failed = page.getByText('Errore', { exact: true });
  const deadline = Date.now() + PROCESSING_TIMEOUT_MS;
  while ((await done.count()) < 2) {
    expect(await failed.count(), `una foto è finita in errore: ${await cards.allInnerTexts()}`).toBe(0);
    expect(Date.now(), `foto non completate entro ${PROCESSING_TIMEOUT_MS / 1000} s`).toBeLessThan(deadline);
    await page.waitForTimeout(1_000);
  }
  for (const card of await cards.all()) await expect(card.getByText('Completata', { exact: true })).toBeVisible();
  await expect(page.getByText('2 foto · 2 completate · 0 in elaborazione')).toBeVisible();
  await page.screenshot({ path: path.join(RESULTS_DIR, 'photos-completed.png'), fullPage: true });

  const downloading = page.waitForEvent('download');
  await cards.first().getByRole('button', { name: 'Scarica', exact: true }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/\.jpg$/);
  const bytes = fs.readFileSync(await download.path());
  expect(bytes.length).toBeGreaterThan(1_000);
  expect([...bytes.subarray(0, 2)]).toEqual([0xff, 0xd8]);

  await page.goto('/dashboard');
  await expect(page.getByText('Crediti disponibili:')).toHaveText('Crediti disponibili: 13');
});

/** Scenario d: a client is refused the admin dashboard. */
test('un cliente su /admin-dashboard vede Accesso Negato', async ({ page }) => {
  await page.goto('/admin-dashboard');
  await expect(page.getByRole('heading', { name: 'Accesso Negato' })).toBeVisible();
  await expect(page.getByText('Non hai i permessi di amministratore necessari per accedere a questa sezione')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Torna alla Dashboard' })).toBeVisible();
});
