import { expect, test as setup } from '@playwright/test';
import { AUTH_STATE } from './paths';

interface OutboxMail {
  to: string;
  subject: string;
  links: string[];
}

/**
 * Scenario b: a new client signs up on /auth, confirms through the e-mailed link (read from the dev
 * outbox) and lands on the dashboard with 15 credits. The session is saved for `client.spec.ts`.
 */
setup('registrazione dalla UI e conferma dal link e-mail', async ({ page, request }) => {
  const email = `e2e-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.it`;

  await page.goto('/auth');
  await page.getByRole('tab', { name: 'Registrati' }).click();
  const form = page.getByRole('form', { name: 'Registrati' });
  await form.getByLabel('Nome', { exact: true }).fill('Giulia');
  await form.getByLabel('Cognome', { exact: true }).fill('Bianchi');
  await form.getByLabel('Email', { exact: true }).fill(email);
  await form.getByLabel('Password', { exact: true }).fill('segreto123');
  await form.getByRole('button', { name: 'Crea Account' }).click();

  await expect(page.getByRole('status').filter({ hasText: 'Registrazione completata' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: "Controlla la tua email per confermare l'account" })).toBeVisible();

  // The confirmation e-mail, newest first, from the development outbox.
  let link = '';
  await expect
    .poll(
      async () => {
        const response = await request.get('/api/dev/mail', { params: { to: email } });
        expect(response.status()).toBe(200);
        const mails = (await response.json()) as OutboxMail[];
        link = mails[0]?.links.find((l) => l.includes('/auth/callback')) ?? '';
        return link;
      },
      { message: `e-mail di conferma per ${email}` },
    )
    .toContain('type=signup');
  expect(link).toContain('token_hash=');

  await page.goto(link);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/^(Buongiorno|Buon pomeriggio|Buonasera), Giulia!$/);
  await expect(page.getByText('Crediti disponibili:')).toHaveText('Crediti disponibili: 15');
  await expect(page.getByRole('group', { name: 'Crediti', exact: true })).toContainText('15');

  await page.context().storageState({ path: AUTH_STATE });
});
