/// <reference types="vitest/config" />
import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { SERVER_PATH_PATTERNS } from './src/config/server-routes';

export const THEME_COLOR = '#1d4ed8';

export default defineConfig({
  plugins: [
    react(),
    VitePWA({
      registerType: 'autoUpdate',
      includeAssets: ['favicon.svg', 'apple-touch-icon.png'],
      manifest: {
        name: 'FotoPronta',
        short_name: 'FotoPronta',
        description: 'Foto prodotto professionali per il tuo e-commerce, pronte in poche ore.',
        lang: 'it',
        start_url: '/dashboard',
        scope: '/',
        display: 'standalone',
        background_color: '#ffffff',
        theme_color: THEME_COLOR,
        icons: [
          { src: '/pwa-192x192.png', sizes: '192x192', type: 'image/png' },
          { src: '/pwa-512x512.png', sizes: '512x512', type: 'image/png' },
          { src: '/maskable-512x512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
          { src: '/favicon.svg', sizes: 'any', type: 'image/svg+xml' },
        ],
      },
      workbox: {
        navigateFallback: '/index.html',
        // Server pages (API and its server-sent events, /healthz, /dev/checkout, /dev/mail, docs) are
        // never answered with the app shell; src/app/server-page-rescue.ts recovers from older workers.
        navigateFallbackDenylist: SERVER_PATH_PATTERNS,
        globPatterns: ['**/*.{js,css,html,svg,png,ico,webmanifest}'],
        // Offline: the last answers of the signed-in pages' reads and of /api/config
        // (the credit costs the upload page shows), network first.
        // Cache name shared with src/stores/session.ts, which deletes it on sign-out.
        runtimeCaching: [
          {
            urlPattern: ({ url, request }) =>
              request.method === 'GET' && url.origin === self.location.origin && /^\/api\/(me|config|photos|notifications|orders|credits\/[\w-]+)$/.test(url.pathname),
            handler: 'NetworkFirst',
            options: {
              cacheName: 'fotopronta-api',
              expiration: { maxEntries: 50, maxAgeSeconds: 7 * 24 * 3600 },
              plugins: [
                {
                  // NetworkFirst reads its cache only when the network failed: mark such answers so the
                  // page knows the server was not reached (SERVED_FROM_CACHE_HEADER in
                  // src/stores/connectivity.ts; workbox serialises this function, so the literal is here).
                  cachedResponseWillBeUsed: async ({ cachedResponse }: { cachedResponse?: Response }) => {
                    if (!cachedResponse) return cachedResponse;
                    const headers = new Headers(cachedResponse.headers);
                    headers.set('X-FotoPronta-Served-From-Cache', '1');
                    return new Response(await cachedResponse.blob(), {
                      status: cachedResponse.status,
                      statusText: cachedResponse.statusText,
                      headers,
                    });
                  },
                },
              ],
            },
          },
        ],
      },
    }),
  ],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    proxy: { '/api': 'http://localhost:8000' },
  },
  test: {
    globals: true,
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    // Pages are lazy routes: a test's first render waits for a dynamic import (slow on a busy machine).
    testTimeout: 20_000,
  },
});
