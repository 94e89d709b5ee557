import { expect, test } from '@playwright/test';

interface OutboxMail {
  links: string[];
}

/**
 * Account pre-hijacking: someone signs up the owner's address with their own password (from
 * another "browser": Playwright's request context has its own cookies). The owner opens the e-mailed
 * link in their browser, is told the address is confirmed and asked for the code shown after sign-up
 * (which they do not have) or a new password; they choose one and sign in with it; the other password
 * never works.
 */
test('il link aperto in un altro browser chiede la password: quella scelta da altri non funziona', async ({ page, request }) => {
  const email = `e2e-owner-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.it`;
  const signup = await request.post('/api/auth/signup', {
    data: { email, password: 'password-attaccante', first_name: 'Mallory' },
  });
  expect(signup.status()).toBe(201);
  const mails = (await (await request.get('/api/dev/mail', { params: { to: email } })).json()) as OutboxMail[];
  const link = mails[0].links[0];
  expect(link).toContain('type=signup');

  await page.goto(link);
  await expect(page).toHaveURL(/\/auth\?type=recovery&from=signup$/);
  await expect(page.getByRole('heading', { name: 'Email confermata' })).toBeVisible();
  await expect(page.getByText('Il tuo indirizzo email è confermato.')).toBeVisible();
  const form = page.getByRole('form', { name: 'Nuova password' });
  await form.getByLabel('Nuova password').fill('la-mia-password');
  await form.getByRole('button', { name: 'Cambia password' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Password aggiornata' })).toBeVisible();

  const attacker = await request.post('/api/auth/login', { data: { email, password: 'password-attaccante' } });
  expect(attacker.status()).toBe(401);

  const login = page.getByRole('form', { name: 'Accedi' });
  await login.getByLabel('Email', { exact: true }).fill(email);
  await login.getByLabel('Password', { exact: true }).fill('la-mia-password');
  await login.getByRole('button', { name: 'Accedi' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
});
