import { defineConfig } from '@playwright/test';
import { AUTH_STATE, BASE_URL_ENV, CHROMIUM_ARGS, CHROMIUM_PATH, RESULTS_DIR } from './paths';

/**
 * End-to-end tests in Debian's chromium against the whole stack, started by `global-setup.ts` on free
 * ports (it exports the base URL in `FOTOPRONTA_E2E_BASE_URL`, which the workers inherit).
 * Projects: `setup` signs a client up through the UI and saves the session; `public` needs no account;
 * `accounts` checks the sign-up confirmation from another browser (against account pre-hijacking);
 * `seller` signs up its own clients (purchases, thumbnails, profile defaults); `client` reuses the saved
 * session; `review` creates its own accounts; `pwa` reuses it with the service worker allowed;
 * `polish-public` and `polish-client` check the interface's finish: icons, dialogs, the trial modal,
 * offline, a fast first visit (the latter also with the saved session; its offline test lets the service
 * worker run).
 * `staff` signs in admins and designers created in the stack's database; `developers` signs up its own
 * client for the API keys of 'Sviluppatori'.
 */
export default defineConfig({
  testDir: '.',
  outputDir: RESULTS_DIR,
  globalSetup: './global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  retries: 0,
  workers: 2,
  forbidOnly: true,
  reporter: [['list']],
  use: {
    baseURL: process.env[BASE_URL_ENV],
    locale: 'it-IT',
    timezoneId: 'Europe/Rome',
    // The PWA's service worker is not under test; blocking it keeps every run starting from the network.
    serviceWorkers: 'block',
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, chromiumSandbox: false },
  },
  projects: [
    { name: 'setup', testMatch: /signup\.setup\.ts$/ },
    { name: 'public', testMatch: /(^|\/)public\.spec\.ts$/ },
    { name: 'accounts', testMatch: /accounts\.spec\.ts$/ },
    { name: 'seller', testMatch: /seller\.spec\.ts$/ },
    { name: 'client', testMatch: /(^|\/)client\.spec\.ts$/, dependencies: ['setup'], use: { storageState: AUTH_STATE } },
    // own accounts, created in the database (e2e/stack-db.ts)
    { name: 'review', testMatch: /review\.spec\.ts$/ },
    { name: 'photos-list', testMatch: /photos-list\.spec\.ts$/ },
    // the service worker is what these test: allowed, with the signed-up client's session
    { name: 'pwa', testMatch: /pwa\.spec\.ts$/, dependencies: ['setup'], use: { storageState: AUTH_STATE, serviceWorkers: 'allow' } },
    // the interface's finish: icons, dialogs, trial modal, offline, fast first visit
    { name: 'polish-public', testMatch: /polish-public\.spec\.ts$/ },
    { name: 'polish-client', testMatch: /polish-client\.spec\.ts$/, dependencies: ['setup'], use: { storageState: AUTH_STATE } },
    { name: 'staff', testMatch: /staff\.spec\.ts$/ },
    // a day of real work: mixed batches, designer notes and rejections, honest counters, staff accounts
    { name: 'work-day', testMatch: /work-day\.spec\.ts$/ },
    // sellers', designers' and admins' everyday friction: own accounts, created in the database
    { name: 'friction', testMatch: /friction\.spec\.ts$/ },
    // the public API's keys on 'Sviluppatori': create, copy, last use, revoke
    { name: 'developers', testMatch: /developers\.spec\.ts$/ },
    { name: 'webhooks', testMatch: /webhooks\.spec\.ts$/ },
    // what a day of real work still tripped on: own accounts, created in the database
    { name: 'real-work', testMatch: /real-work\.spec\.ts$/ },
  ],
});
