import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { PROCESSING_TIMEOUT_MS } from './helpers';
import { PHOTOS_DIR, RESULTS_DIR } from './paths';
import { createUser, setReview } from './stack-db';

/**
 * An AI result the retouch pipeline is unsure of (`processing_details.needs_review`)
 * shows 'Da verificare' on its card with the original beside the result, says why in plain Italian,
 * and one click sends it to the free designer rework (no credits); the admin overview counts it.
 * The flag is written on the really completed job, as the pipeline would have written it.
 * Then the designer rejects the rework: the seller keeps the AI result and its download.
 */
const PHOTO = path.join(PHOTOS_DIR, 'Banana_Iconic.jpg');
const PASSWORD = 'segreto123';
const WHY = 'Il ritocco automatico non è sicuro di aver isolato il prodotto giusto: un grafico può rifinirlo gratis.';

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto('/auth');
  const form = page.getByRole('form', { name: 'Accedi' });
  await form.getByLabel('Email', { exact: true }).fill(email);
  await form.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await form.getByRole('button', { name: 'Accedi' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

async function bearer(page: Page): Promise<Record<string, string>> {
  const token = await page.evaluate(() => JSON.parse(localStorage.getItem('fotopronta-session') ?? '{}')?.state?.session?.access_token as string);
  expect(token, 'sessione salvata').toBeTruthy();
  return { Authorization: `Bearer ${token}` };
}

test('un risultato AI dubbio è "Da verificare" e va a un grafico gratis con un clic', async ({ page, browser, request }) => {
  test.skip(!fs.existsSync(PHOTO), `foto reale assente in ${PHOTOS_DIR}: test saltato`);
  test.setTimeout(PROCESSING_TIMEOUT_MS + 90_000);
  const stamp = `${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const seller = `verifica-${stamp}@example.it`;
  const admin = `admin-verifica-${stamp}@example.it`;
  createUser(seller, PASSWORD, 'client');
  createUser(admin, PASSWORD, 'admin', 'Marta');

  await signIn(page, seller);
  const auth = await bearer(page);
  const upload = await request.post('/api/photos', {
    headers: auth,
    multipart: { files: { name: 'Banana_Iconic.jpg', mimeType: 'image/jpeg', buffer: fs.readFileSync(PHOTO) } },
  });
  expect(upload.status(), await upload.text()).toBe(201);
  const [photo] = (await upload.json()) as { id: string; jobs: { id: string }[] }[];
  const jobId = photo.jobs[0].id;
  await expect
    .poll(
      async () => {
        const { items: photos } = (await (await request.get('/api/photos', { headers: auth })).json()) as { items: { id: string; jobs: { status: string }[] }[] };
        return photos.find((p) => p.id === photo.id)?.jobs[0].status;
      },
      { timeout: PROCESSING_TIMEOUT_MS, intervals: [1_000], message: 'ritocco AI completato' },
    )
    .toBe('completed');
  setReview(jobId, 0.38, true);

  await page.goto('/photos');
  const card = page.getByRole('article');
  await expect(card).toHaveCount(1);
  await expect(card.getByText('Completata', { exact: true })).toBeVisible();
  await expect(card.getByText('Da verificare', { exact: true })).toBeVisible();
  await expect(card.getByText(WHY)).toBeVisible();
  await expect(card.getByText('Affidabilità del ritocco automatico: 38%')).toBeVisible();
  const before = card.getByRole('img', { name: /^Prima:/ });
  const after = card.getByRole('img', { name: /^Dopo:/ });
  await expect(before).toBeVisible();
  await expect(after).toBeVisible();
  for (const img of [before, after]) await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
  await expect(card.getByRole('button', { name: 'Scarica', exact: true })).toBeVisible();
  await page.screenshot({ path: path.join(RESULTS_DIR, 'review-card-desktop.png'), fullPage: true });
  await page.setViewportSize({ width: 375, height: 812 });
  await expect(card.getByRole('button', { name: 'Fai rifinire a un grafico' })).toBeVisible();
  await page.screenshot({ path: path.join(RESULTS_DIR, 'review-card-375.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });

  // one click, no question asked: the free rework by the designers
  await card.getByRole('button', { name: 'Fai rifinire a un grafico' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Revisione richiesta' })).toBeVisible();
  await expect(card.getByText('In coda per grafici', { exact: true })).toBeVisible();
  await expect(card.getByText('Da verificare', { exact: true })).toHaveCount(0);
  await expect(card.getByRole('button', { name: 'Fai rifinire a un grafico' })).toHaveCount(0);
  await expect(card.getByRole('button', { name: 'Scarica', exact: true })).toBeVisible(); // the AI result stays
  await page.screenshot({ path: path.join(RESULTS_DIR, 'review-card-after-rework.png'), fullPage: true });
  const me = (await (await request.get('/api/me', { headers: auth })).json()) as { credits_remaining: number };
  expect(me.credits_remaining).toBe(14); // 1 credit for the AI result, the rework is free
  const { items: photos } = (await (await request.get('/api/photos', { headers: auth })).json()) as {
    items: { jobs: { id: string; job_type: string; status: string; client_notes: string | null }[] }[];
  };
  const rework = photos[0].jobs.find((j) => j.job_type === 'background_removal_human');
  expect(rework?.status).toBe('pending_human');
  expect(rework?.client_notes).toContain('Da verificare');

  // the admin overview counts the flagged result
  const adminContext = await browser.newContext();
  const adminPage = await adminContext.newPage();
  await signIn(adminPage, admin);
  await adminPage.goto('/admin-dashboard');
  const flagged = adminPage.getByRole('listitem').filter({ hasText: 'Risultati AI da verificare' });
  await expect(flagged).toContainText('1');
  await expect(flagged).toContainText('Segnalati dal ritocco automatico negli ultimi 7 giorni');
  await adminPage.screenshot({ path: path.join(RESULTS_DIR, 'review-admin-overview.png'), fullPage: true });
  await adminContext.close();

  // the designer rejects the rework; the seller keeps the AI result and its download
  const designer = `grafico-verifica-${stamp}@example.it`;
  createUser(designer, PASSWORD, 'graphic', 'Marco');
  const login = await request.post('/api/auth/login', { data: { email: designer, password: PASSWORD } });
  const designerAuth = { Authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
  const reworkId = rework?.id ?? '';
  for (const step of ['assign-to-me', 'start']) {
    const resp = await request.post(`/api/designer/jobs/${reworkId}/${step}`, { headers: designerAuth });
    expect(resp.status(), await resp.text()).toBe(200);
  }
  const reason = 'Il prodotto è già scontornato bene: nessun intervento necessario';
  const rejected = await request.post(`/api/designer/jobs/${reworkId}/reject`, { headers: designerAuth, data: { notes: reason } });
  expect(rejected.status(), await rejected.text()).toBe(200);
  await page.goto('/photos');
  // the photo the seller has is delivered: its badge says so, the rejected rework is a note
  await expect(card.getByText('Completata', { exact: true })).toBeVisible();
  await expect(card.getByText('Rifiutata', { exact: true })).toHaveCount(0);
  await expect(card.getByRole('note').filter({ hasText: 'Revisione gratuita non eseguita' })).toContainText(`«${reason}»`);
  await expect(card.getByRole('note').filter({ hasText: 'Revisione gratuita non eseguita' })).toContainText('Il risultato consegnato resta tuo');
  const downloading = page.waitForEvent('download');
  await card.getByRole('button', { name: 'Scarica', exact: true }).click();
  expect((await downloading).suggestedFilename()).toMatch(/\.jpg$/);
  await page.screenshot({ path: path.join(RESULTS_DIR, 'review-card-rework-rejected.png'), fullPage: true });
  await page.goto('/dashboard');
  await expect(page.getByRole('group', { name: 'Processate' })).toContainText('1');
  await expect(page.getByRole('group', { name: 'In Coda' })).toContainText('0');
});
