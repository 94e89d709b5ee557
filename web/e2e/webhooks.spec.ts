import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { screenshots, signUpNewClient } from './helpers';
import { productJpeg } from './staff-helpers';

/**
 * 'Sviluppatori' → Webhook: a seller registers an endpoint (a receiver on loopback, allowed by the
 * development stack), sees its secret once, starts a job with an API key, watches the delivery arrive
 * in the log, resends it, and rotates the secret (the receiver then gets two `v1,` signatures).
 * Screenshots at 1366 and 375 px.
 */
test('webhook: registra, registro invii, reinvia, ruota il segreto', async ({ page }) => {
  const received: { id: string; signature: string; type: string }[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { type: string };
      received.push({ id: String(req.headers['webhook-id']), signature: String(req.headers['webhook-signature']), type: body.type });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    await signUpNewClient(page, 'Wanda');
    await page.goto('/developers');
    await page.getByLabel('Nome della chiave').fill('Script');
    await page.getByRole('button', { name: /Crea chiave/ }).click();
    const keyDialog = page.getByRole('dialog', { name: 'La tua nuova chiave API' });
    const secret = (await keyDialog.getByLabel('Chiave segreta').textContent())?.trim() ?? '';
    await keyDialog.getByRole('button', { name: 'Ho salvato la chiave' }).click();

    await page.getByLabel("URL dell'endpoint").fill(url);
    await page.getByRole('button', { name: /Registra endpoint/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Il segreto di firma del webhook' });
    await expect(dialog.getByLabel('Segreto di firma')).toHaveText(/^whsec_[A-Za-z0-9+/=]{44}$/);
    await screenshots(page, 'developers-webhook-secret');
    await dialog.getByRole('button', { name: 'Ho salvato il segreto' }).click();

    const job = await page.request.post('/v1/jobs', {
      headers: { 'X-Api-Key': secret },
      multipart: { image_file: { name: 'vaso.jpg', mimeType: 'image/jpeg', buffer: productJpeg() } },
    });
    expect(job.status(), await job.text()).toBe(202);

    const log = page.getByRole('table', { name: `Registro invii di ${url}` });
    await expect(log.getByText('Consegnato')).toBeVisible({ timeout: 180_000 });
    await expect(log.getByText('job.completed')).toBeVisible();
    await expect(log.getByText(/^200 \(\d+ ms\)$/)).toBeVisible();
    await screenshots(page, 'developers-webhook-log', () => log.scrollIntoViewIfNeeded());

    await log.getByRole('button', { name: 'Reinvia job.completed' }).click();
    await expect(log.getByText(/^200 \(\d+ ms\), 200 \(\d+ ms\)$/)).toBeVisible({ timeout: 30_000 });
    const sent = received.filter((r) => r.type === 'job.completed');
    expect(sent).toHaveLength(2);
    expect(sent[0].id).toBe(sent[1].id); // the same webhook-id: a resend is recognisable

    await page.getByRole('button', { name: 'Ruota il segreto' }).click();
    const rotated = page.getByRole('dialog', { name: 'Il nuovo segreto di firma' });
    await expect(rotated.getByLabel('Segreto di firma')).toHaveText(/^whsec_/);
    await screenshots(page, 'developers-webhook-rotated');
    await rotated.getByRole('button', { name: 'Ho salvato il segreto' }).click();
    await log.getByRole('button', { name: 'Reinvia job.completed' }).click();
    await expect.poll(() => received.filter((r) => r.type === 'job.completed').length, { timeout: 30_000 }).toBe(3);
    expect(received.filter((r) => r.type === 'job.completed')[2].signature.split(' ')).toHaveLength(2);
  } finally {
    receiver.close();
  }
});
