import { useEffect } from 'react';

/** Registers the service worker (vite-plugin-pwa, auto-update) in production builds only. */
export function PwaUpdater() {
  useEffect(() => {
    if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
    void import('virtual:pwa-register').then(({ registerSW }) => registerSW({ immediate: true }));
  }, []);
  return null;
}
