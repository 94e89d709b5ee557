import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (web/e2e/ → ../..). */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Playwright output (gitignored): traces, failure screenshots, the /photos screenshot, stack logs. */
export const RESULTS_DIR = path.join(REPO_ROOT, 'web', 'test-results');
/** Session of the client signed up by `signup.setup.ts`, reused by `client.spec.ts`. */
export const AUTH_STATE = path.join(RESULTS_DIR, '.auth', 'client.json');
/** Real photos shared beside the repository; never copied into it (photos/README.md). */
export const PHOTOS_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'photos', 'nomask');
/** Where global setup publishes the stack's URL for the test workers. */
export const BASE_URL_ENV = 'FOTOPRONTA_E2E_BASE_URL';
/** Where global setup publishes the stack's data directory and PostgreSQL port (JSON), for e2e/stack-db.ts. */
export const STACK_DB_ENV = 'FOTOPRONTA_E2E_STACK_DB';
/** The stack's database settings (JSON of FOTOPRONTA_* values), published by global setup. */
export const STACK_ENV = 'FOTOPRONTA_E2E_STACK_ENV';

/** Debian's chromium (`make browser`); Playwright's own browser download does not work here. */
export const CHROMIUM_PATH = process.env.FOTOPRONTA_E2E_CHROMIUM ?? '/usr/bin/chromium';
/** Without the background-networking flags chromium hangs on the closed network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
