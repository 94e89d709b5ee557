/** Constants of the web app itself (SPEC §9); the server's rules (credit costs, sign-up credits, the
 * free-rework window, batch limits, presets, background categories, job status labels and groups, the
 * photo list's page size) come from `GET /api/config` (`useConfig`, lib/app-config.ts). */
export const PRODUCT_NAME = 'FotoPronta';
export const CONTACT_EMAIL = 'info@fotopronta.it';

/** Above this many photos the upload page shows the large-batch notice. */
export const LARGE_BATCH_THRESHOLD = 5;
/** Estimated processing time: minutes per photo (rounded up for the batch). */
export const MINUTES_PER_PHOTO = 0.5;

export const INSTALL_PROMPT_DELAY_MS = 3000;
export const INSTALL_DISMISSED_KEY = 'pwa-prompt-dismissed';
export const MOBILE_BREAKPOINT = 768;
export const SIDEBAR_COOKIE = 'sidebar_state';
export const SIDEBAR_COOKIE_MAX_AGE = 60 * 60 * 24 * 7;
export const PHOTOS_POLL_MS = 3000;
export const NOTIFICATIONS_POLL_MS = 30000;

export const LANDING_PACKAGES = [
  {
    name: 'Light',
    photos: 50,
    price: '€15',
    perPhoto: '€0,30',
    description: 'Per chi inizia a vendere online.',
    features: ['50 foto elaborate', 'Sfondo bianco e ombra naturale', 'Nomi file SEO', 'Crediti validi 365 giorni'],
    popular: false,
  },
  {
    name: 'Standard',
    photos: 100,
    price: '€25',
    perPhoto: '€0,25',
    description: 'Il giusto equilibrio per un catalogo in crescita.',
    features: ['100 foto elaborate', 'Luce e colori ottimizzati', 'Download JPG e WebP', 'Crediti validi 365 giorni'],
    popular: true,
  },
  {
    name: 'Maxi',
    photos: 300,
    price: '€60',
    perPhoto: '€0,20',
    description: 'Per negozi con tanti prodotti.',
    features: ['300 foto elaborate', 'Elaborazione in blocco', 'Correzione piccoli difetti', 'Crediti validi 365 giorni'],
    popular: false,
  },
] as const;
