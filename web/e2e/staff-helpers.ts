import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { REPO_ROOT, STACK_ENV } from './paths';

/** Runs Python code in the repository's virtualenv against the e2e stack's database; returns stdout. */
function python(code: string, ...args: string[]): string {
  const stackEnv = JSON.parse(process.env[STACK_ENV] ?? '{}') as Record<string, string>;
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FOTOPRONTA_')));
  return execFileSync(path.join(REPO_ROOT, '.venv', 'bin', 'python'), ['-c', code, ...args], {
    cwd: REPO_ROOT,
    env: { ...inherited, ...stackEnv },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

const CREATE_USERS = `
import json, sys
from fotopronta.accounts import create_user
from fotopronta.db import session_scope
from fotopronta.models import UserRole
out = []
with session_scope() as session:
    for spec in json.loads(sys.argv[1]):
        p = create_user(session, email=spec["email"], password=spec["password"], first_name=spec.get("first_name"),
                        last_name=spec.get("last_name"), role=UserRole(spec["role"]), confirmed=True)
        session.flush()
        out.append(str(p.id))
print(json.dumps(out))
`;

export interface NewUser {
  email: string;
  password: string;
  role: 'client' | 'graphic' | 'admin';
  first_name?: string;
  last_name?: string;
}

/** Creates confirmed, active users directly in the database (one Python process); returns their ids. */
export function createUsers(users: NewUser[]): string[] {
  return JSON.parse(python(CREATE_USERS, JSON.stringify(users))) as string[];
}

/** A product-like JPEG (the pytest factory's), to upload without the shared photos. */
export function productJpeg(width = 320, height = 240): Buffer {
  const b64 = python(
    'import base64, sys; from tests.utils.factories import product_photo_bytes; print(base64.b64encode(product_photo_bytes((int(sys.argv[1]), int(sys.argv[2])))).decode())',
    String(width),
    String(height),
  );
  return Buffer.from(b64.trim(), 'base64');
}

/** A unique address for this run. */
export const uniqueEmail = (prefix: string) => `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.it`;

/** Signs in through the API; returns the bearer header. */
export async function apiLogin(request: APIRequestContext, email: string, password: string): Promise<Record<string, string>> {
  const response = await request.post('/api/auth/login', { data: { email, password } });
  expect(response.status()).toBe(200);
  const { access_token } = (await response.json()) as { access_token: string };
  return { Authorization: `Bearer ${access_token}` };
}

/** Uploads one photo as the signed-in user; returns the job id. */
export async function uploadPhoto(request: APIRequestContext, headers: Record<string, string>, name: string, data: Buffer, jobType = 'background_removal'): Promise<string> {
  const response = await request.post('/api/photos', {
    headers,
    multipart: { files: { name, mimeType: 'image/jpeg', buffer: data }, job_type: jobType },
  });
  expect(response.status(), await response.text()).toBe(201);
  const [photo] = (await response.json()) as { jobs: { id: string }[] }[];
  return photo.jobs[0].id;
}

/** Polls `GET /api/photos` until the job has one of `statuses`. */
export async function waitForJob(request: APIRequestContext, headers: Record<string, string>, jobId: string, statuses: string[]): Promise<void> {
  await expect
    .poll(
      async () => {
        const page = (await (await request.get('/api/photos', { headers, params: { limit: 100 } })).json()) as { items: { jobs: { id: string; status: string }[] }[] };
        return page.items.flatMap((p) => p.jobs).find((j) => j.id === jobId)?.status;
      },
      { timeout: 120_000, intervals: [500] },
    )
    .toMatch(new RegExp(`^(${statuses.join('|')})$`));
}

/** Signs in through the login form. */
export async function uiLogin(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/auth');
  const form = page.getByRole('form', { name: 'Accedi' });
  await form.getByLabel('Email', { exact: true }).fill(email);
  await form.getByLabel('Password', { exact: true }).fill(password);
  await form.getByRole('button', { name: 'Accedi' }).click();
}
