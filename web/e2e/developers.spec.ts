import { expect, test } from '@playwright/test';
import { screenshots, signUpNewClient } from './helpers';

/**
 * 'Sviluppatori': a seller creates an API key, sees its secret once, copies the quickstart (which
 * carries the key and this site's address), sees `last_used_at` after a call to the public API, and
 * revokes the key, which the API refuses at the next request. Screenshots at 1366 and 375 px.
 */
test('chiavi API: crea, copia la guida rapida, ultimo utilizzo, revoca', async ({ page, context, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(baseURL!).origin });
  await signUpNewClient(page, 'Dario');

  await page.getByRole('button', { name: 'Menu utente' }).click();
  await page.getByRole('menuitem', { name: 'Sviluppatori' }).click();
  await expect(page).toHaveURL(/\/developers$/);
  await expect(page.getByRole('heading', { name: 'Sviluppatori' })).toBeVisible();
  await expect(page.getByText(/Non hai ancora chiavi API/)).toBeVisible();

  await page.getByLabel('Nome della chiave').fill('Negozio Shopify');
  await page.getByLabel('Tetto mensile di crediti (facoltativo)').fill('100');
  await page.getByRole('button', { name: /Crea chiave/ }).click();

  const dialog = page.getByRole('dialog', { name: 'La tua nuova chiave API' });
  await expect(dialog).toBeVisible();
  const secret = (await dialog.getByLabel('Chiave segreta').textContent())?.trim() ?? '';
  expect(secret).toMatch(/^fp_live_[A-Za-z0-9]{43}$/);
  await screenshots(page, 'developers-new-key');
  await dialog.getByRole('button', { name: 'Copia chiave' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await dialog.getByRole('button', { name: 'Ho salvato la chiave' }).click();
  await expect(dialog).toBeHidden();

  // the quickstart, copied: the key and this site's address
  await page.getByRole('tab', { name: 'Python' }).click();
  await page.getByRole('button', { name: 'Copia esempio' }).click();
  const snippet = await page.evaluate(() => navigator.clipboard.readText());
  expect(snippet).toContain(`Bearer ${secret}`);
  expect(snippet).toContain(`${new URL(baseURL!).origin}/v1`);

  // listed by its prefix, never used; then a call with the key, and the list shows when
  const row = page.getByRole('row').filter({ hasText: 'Negozio Shopify' });
  await expect(row.getByText(`${secret.slice(0, 16)}…`)).toBeVisible();
  await expect(row.getByText('Mai usata')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Chiavi API' })).not.toContainText(secret.slice(16));
  const account = await page.request.get('/v1/account', { headers: { 'X-Api-Key': secret } });
  expect(account.status(), await account.text()).toBe(200);
  expect(((await account.json()) as { credits_remaining: number }).credits_remaining).toBe(15);
  await page.reload();
  await expect(row.getByText('Mai usata')).toBeHidden();
  expect(await page.content()).not.toContain(secret.slice(16)); // shown once: gone after a reload
  await expect(row.getByText('Attiva')).toBeVisible();
  await screenshots(page, 'developers-keys');
  await screenshots(page, 'developers-keys-table', () => row.scrollIntoViewIfNeeded());

  // revoked: the next call is refused
  await row.getByRole('button', { name: 'Revoca Negozio Shopify' }).click();
  await page.getByRole('dialog', { name: 'Revocare la chiave?' }).getByRole('button', { name: 'Revoca chiave' }).click();
  await expect(row.getByText('Revocata')).toBeVisible();
  const refused = await page.request.get('/v1/account', { headers: { 'X-Api-Key': secret } });
  expect(refused.status()).toBe(401);
  expect(((await refused.json()) as { code: string }).code).toBe('api_key_revoked');
  await screenshots(page, 'developers-revoked');
});
