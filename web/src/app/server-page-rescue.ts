import { isServerPath } from '@/config/server-routes';

const RESCUE_KEY = 'fotopronta-sw-rescue';

/**
 * The app shell was served for a server page (`/dev/checkout/…`, `/dev/mail`…): only an outdated service
 * worker, installed before its navigation fallback learnt the server's paths, does that. Unregister
 * every worker and load the page again from the network, once per path (a session flag stops a loop);
 * the next visit to an app page installs the current worker.
 *
 * Returns true when a reload was started (the caller then renders nothing).
 */
export async function rescueServerPage(location: Location = window.location): Promise<boolean> {
  if (!isServerPath(location.pathname) || !('serviceWorker' in navigator)) return false;
  if (sessionStorage.getItem(RESCUE_KEY) === location.pathname) {
    sessionStorage.removeItem(RESCUE_KEY);
    return false;
  }
  const registrations = await navigator.serviceWorker.getRegistrations();
  if (registrations.length === 0) return false;
  sessionStorage.setItem(RESCUE_KEY, location.pathname);
  await Promise.all(registrations.map((r) => r.unregister()));
  location.reload();
  return true;
}
