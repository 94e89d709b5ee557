import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { RESULTS_DIR } from './paths';
import { apiLogin, createUsers, productJpeg, uiLogin, uniqueEmail, uploadPhoto, waitForJob } from './staff-helpers';

const PASSWORD = 'segreto123';
const shot = (name: string) => path.join(RESULTS_DIR, 'screenshots', `${name}.png`);

async function screenshots(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: shot(`${name}-desktop`), fullPage: true });
  await page.setViewportSize({ width: 375, height: 812 });
  await page.screenshot({ path: shot(`${name}-375`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * An admin finds a delivered AI job by the seller's e-mail and reads its Italian
 * timeline (credits, AI retouch attempt, delivery, the 30-day deletion), with the link to the run in Temporal.
 */
test("l'admin cerca un lavoro AI e ne legge la cronologia in italiano con il link a Temporal", async ({ page, request }) => {
  const admin = { email: uniqueEmail('e2e-admin'), password: PASSWORD, role: 'admin' as const, first_name: 'Ada' };
  const seller = { email: uniqueEmail('e2e-venditore'), password: PASSWORD, role: 'client' as const };
  createUsers([admin, seller]);
  const headers = await apiLogin(request, seller.email, seller.password);
  const jobId = await uploadPhoto(request, headers, 'tazza-rossa.jpg', productJpeg());
  await waitForJob(request, headers, jobId, ['completed']);

  await uiLogin(page, admin.email, admin.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/admin-dashboard');
  await page.getByRole('tab', { name: 'Lavori' }).click();
  await page.getByLabel('Cerca lavori').fill(seller.email);
  const row = page.getByRole('row', { name: /tazza-rossa\.jpg/ });
  await expect(row).toBeVisible();
  await expect(row.getByText('Completata')).toBeVisible();
  await expect(page.getByText('Pagina 1 di 1 · 1 risultato')).toBeVisible();
  await page.getByLabel('Stato').selectOption('failed');
  await expect(page.getByText('Nessun lavoro trovato.')).toBeVisible();
  await page.getByLabel('Stato').selectOption('completed');
  await expect(row).toBeVisible();
  await screenshots(page, 'admin-job-search');

  await row.getByRole('button', { name: 'Cronologia tazza-rossa.jpg' }).click();
  const timeline = page.getByRole('region', { name: 'Cronologia tazza-rossa.jpg' });
  const steps = timeline.getByRole('listitem');
  await expect(steps.filter({ hasText: 'Prenotazione crediti' })).toContainText('Riuscito');
  await expect(steps.filter({ hasText: 'Ritocco AI' })).toContainText('tentativo 1/3 riuscito');
  await expect(steps.filter({ hasText: 'Ritocco AI' })).toContainText('durata');
  await expect(steps.filter({ hasText: /^Consegna/ })).toContainText('Riuscito');
  await expect(steps.filter({ hasText: 'Attesa prima della cancellazione dei file' })).toContainText('prevista il');
  await expect(timeline.getByText(/^Consegnato — file conservati fino al \d{1,2} [a-z]+ \d{4}$/)).toBeVisible();
  await expect(timeline.getByText('Nessun errore')).toBeVisible();
  const link = timeline.getByRole('link', { name: 'Apri in Temporal' });
  await expect(link).toHaveAttribute('href', new RegExp(`/namespaces/default/workflows/photo-job-${jobId}/[^/]+/history$`));
  await expect(link).toHaveAttribute('target', '_blank');
  await timeline.scrollIntoViewIfNeeded();
  await screenshots(page, 'admin-job-timeline');
});

/** The users table is paginated on the server and sorted by accessible headers. */
test("l'admin sfoglia e ordina gli utenti per pagine", async ({ page }) => {
  const tag = `pag${Date.now()}`;
  const admin = { email: uniqueEmail('e2e-admin'), password: PASSWORD, role: 'admin' as const };
  const many = Array.from({ length: 23 }, (_, i) => ({
    email: `${tag}-${String(i).padStart(2, '0')}@example.it`,
    password: PASSWORD,
    role: 'client' as const,
  }));
  createUsers([admin, ...many]);

  await uiLogin(page, admin.email, admin.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/admin-dashboard');
  await page.getByRole('tab', { name: 'Gestione utenti' }).click();
  await page.getByLabel('Cerca utenti').fill(tag);
  await expect(page.getByText('Pagina 1 di 2 · 23 risultati')).toBeVisible();
  const table = page.getByRole('table', { name: 'Utenti' });
  await expect(table.locator('tbody tr')).toHaveCount(20);

  const email = table.getByRole('columnheader', { name: /Email/ });
  await expect(email).toHaveAttribute('aria-sort', 'none');
  await expect(table.getByRole('columnheader', { name: /Registrato/ })).toHaveAttribute('aria-sort', 'descending');
  await email.getByRole('button').click();
  await expect(email).toHaveAttribute('aria-sort', 'ascending');
  await expect(table.locator('tbody tr').first()).toContainText(`${tag}-00@example.it`);
  await email.getByRole('button').click();
  await expect(email).toHaveAttribute('aria-sort', 'descending');
  await expect(table.locator('tbody tr').first()).toContainText(`${tag}-22@example.it`);

  await page.getByRole('navigation', { name: 'Pagine degli utenti' }).getByRole('button', { name: 'Successiva' }).click();
  await expect(page.getByText('Pagina 2 di 2 · 23 risultati')).toBeVisible();
  await expect(table.locator('tbody tr')).toHaveCount(3);
  await expect(table.locator('tbody tr').last()).toContainText(`${tag}-00@example.it`);
  await screenshots(page, 'admin-users-pages');
});

/**
 * A designer lands on /graphics-dashboard, sees a thumbnail of each original, and
 * an admin's assignment reaches the bell live (no reload).
 */
test('il grafico arriva sulla sua dashboard con le anteprime e riceve la notifica di assegnazione', async ({ page, request }) => {
  const designer = { email: uniqueEmail('e2e-grafico'), password: PASSWORD, role: 'graphic' as const, first_name: 'Marco', last_name: 'Rossi' };
  const admin = { email: uniqueEmail('e2e-admin'), password: PASSWORD, role: 'admin' as const };
  const seller = { email: uniqueEmail('e2e-venditore'), password: PASSWORD, role: 'client' as const };
  const [designerId] = createUsers([designer, admin, seller]);
  const headers = await apiLogin(request, seller.email, seller.password);
  const jobId = await uploadPhoto(request, headers, 'borsa-pelle.jpg', productJpeg(300, 400), 'background_removal_human');
  await waitForJob(request, headers, jobId, ['pending_human']);

  await uiLogin(page, designer.email, designer.password);
  await expect(page).toHaveURL(/\/graphics-dashboard$/);
  const card = page.getByRole('listitem', { name: 'borsa-pelle.jpg' });
  const thumb = card.getByRole('img', { name: 'Anteprima di borsa-pelle.jpg' });
  await expect(thumb).toBeVisible();
  await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  await screenshots(page, 'graphics-dashboard');

  const adminHeaders = await apiLogin(request, admin.email, admin.password);
  const assigned = await request.post(`/api/admin/jobs/${jobId}/assign`, { headers: adminHeaders, data: { designer_id: designerId } });
  expect(assigned.status(), await assigned.text()).toBe(200);
  const bell = page.getByRole('button', { name: /^Notifiche \(\d+ non lette\)$/ });
  await expect(bell).toBeVisible({ timeout: 20_000 });
  await bell.click();
  const panel = page.getByRole('dialog', { name: 'Notifiche' });
  await expect(panel.getByText('Nuovo lavoro assegnato')).toBeVisible();
  await expect(panel.getByText(/Ti è stato assegnato il lavoro su borsa-pelle\.jpg, da consegnare entro il/)).toBeVisible();
  await screenshots(page, 'graphics-dashboard-notification');
});
