import { expect, test } from '@playwright/test';
import { addPhotos, createUser } from './stack-db';

/**
 * On the real stack: /photos loads the paginated `GET /api/photos` 24 at a time
 * (the next page when the end of the grid scrolls into view, or 'Carica altre'), its summary comes from the server's counts, and the search is the server's.
 * The photos are rows written in the stack's database (no files: the cards show no preview).
 */
const PASSWORD = 'segreto123';

test('con 30 foto /photos ne mostra 24, poi le altre scorrendo fino in fondo; la ricerca va al server', async ({ page }) => {
  const email = `pagine-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.it`;
  createUser(email, PASSWORD, 'client');
  addPhotos(email, 30);

  await page.goto('/auth');
  const form = page.getByRole('form', { name: 'Accedi' });
  await form.getByLabel('Email', { exact: true }).fill(email);
  await form.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await form.getByRole('button', { name: 'Accedi' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('group', { name: 'Foto Totali' })).toContainText('30');

  // no `limit`: the page size is the server's (`photos_page_size` of GET /api/config)
  const firstPage = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/photos' && !new URL(r.url()).searchParams.has('limit'));
  await page.goto('/photos');
  await firstPage;
  await expect(page.getByText(/30 foto · 30 completate · 0 in elaborazione/)).toBeVisible();
  await expect(page.getByRole('article')).toHaveCount(24);
  await expect(page.getByRole('article', { name: 'foto-029.jpg' })).toBeVisible(); // newest first

  // the end of the grid coming into view loads the next page (the button is the fallback; clicking it
  // scrolls it into view, which already loads the page: Vitest checks the click itself)
  await page.getByRole('button', { name: 'Carica altre' }).scrollIntoViewIfNeeded();
  await expect(page.getByRole('article')).toHaveCount(30);
  await expect(page.getByRole('article', { name: 'foto-000.jpg' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Carica altre' })).toHaveCount(0);

  const searched = page.waitForResponse((r) => r.url().includes('/api/photos?') && r.url().includes('q=foto-007'));
  await page.getByLabel('Cerca per nome file').fill('foto-007');
  await searched;
  await expect(page.getByRole('article')).toHaveCount(1);
  await expect(page.getByRole('article', { name: 'foto-007.jpg' })).toBeVisible();
});
