import path from 'node:path';
import zlib from 'node:zlib';
import { expect, type Page } from '@playwright/test';
import { RESULTS_DIR } from './paths';

/** How long an AI job on the e2e stack may take to reach 'Completata' (2-core CI, cold model), in ms. */
export const PROCESSING_TIMEOUT_MS = 180_000;

/** Emoji pictographs (not ©, ® or ™, which are text symbols in every font). */
export const EMOJI = /(?![©®™])\p{Extended_Pictographic}/u;

/** The emoji pictographs in the page's rendered text, hidden (aria-hidden) spans included. */
export async function emojiIn(page: Page): Promise<string[]> {
  const text = await page.evaluate(() => document.body.textContent ?? '');
  return [...text.matchAll(new RegExp(EMOJI.source, 'gu'))].map((m) => m[0]);
}

/** Saves a screenshot for people to look at, at desktop size (1366×900) and at 375 px. */
export async function screenshots(page: Page, name: string, prepare?: () => Promise<void>): Promise<void> {
  const original = page.viewportSize();
  for (const [label, width, height] of [
    ['desktop', 1366, 900],
    ['375', 375, 740],
  ] as const) {
    await page.setViewportSize({ width, height });
    if (prepare) await prepare();
    await page.screenshot({ path: path.join(RESULTS_DIR, 'screens', `${name}-${label}.png`) });
  }
  if (original) await page.setViewportSize(original);
}

interface OutboxMail {
  links: string[];
}

/** Signs a new client up through the API with this browser's cookie and opens the e-mailed link. */
export async function signUpNewClient(page: Page, firstName = 'Marta'): Promise<string> {
  const email = `e2e-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.it`;
  await page.goto('/auth');
  const response = await page.request.post('/api/auth/signup', {
    data: { email, password: 'segreto123', first_name: firstName, last_name: 'Rossi' },
  });
  expect(response.status(), await response.text()).toBe(201);
  let link = '';
  await expect
    .poll(async () => {
      const mails = (await (await page.request.get('/api/dev/mail', { params: { to: email } })).json()) as OutboxMail[];
      link = mails[0]?.links.find((l) => l.includes('/auth/callback')) ?? '';
      return link;
    })
    .toContain('token_hash=');
  await page.goto(link);
  await expect(page).toHaveURL(/\/dashboard$/);
  return email;
}

/** A small valid PNG (solid colour), made here so the tests need no image file. */
export function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const byte of buf) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).map((_, i) => [r, g, b][i % 3])]);
  const pixels = zlib.deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}
