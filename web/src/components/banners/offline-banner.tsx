import { useEffect, useSyncExternalStore } from 'react';
import { buildUrl } from '@/lib/api-client';
import { useConnectivityStore } from '@/stores/connectivity';

/** While the server is unreachable, how often the banner asks `/healthz` whether it answers again (ms). */
export const REACHABILITY_PROBE_MS = 5_000;

function subscribe(callback: () => void) {
  window.addEventListener('online', callback);
  window.addEventListener('offline', callback);
  return () => {
    window.removeEventListener('online', callback);
    window.removeEventListener('offline', callback);
  };
}

/** The browser's own view: false while it has no network interface up (`navigator.onLine`). */
export function useBrowserOnline(): boolean {
  return useSyncExternalStore(subscribe, () => navigator.onLine, () => true);
}

/**
 * Any HTTP answer from `/healthz` (even 503: the server answered) marks the server reachable again; the
 * path is not in the service worker's runtime cache, so the request always goes to the network.
 */
async function probeServer(): Promise<void> {
  try {
    await fetch(buildUrl('/healthz'), { cache: 'no-store' });
    useConnectivityStore.getState().markReachable();
  } catch {
    /* still unreachable: the next probe tries again */
  }
}

/** Probes the server while it is marked unreachable, and at once when the browser comes back online. */
function useReachabilityProbe(serverReachable: boolean, browserOnline: boolean) {
  useEffect(() => {
    if (serverReachable || !browserOnline) return undefined;
    void probeServer();
    const timer = window.setInterval(() => void probeServer(), REACHABILITY_PROBE_MS);
    return () => window.clearInterval(timer);
  }, [serverReachable, browserOnline]);
}

/**
 * Top banner shown while the app is offline (SPEC §2 Banners): the browser reports no network, or the
 * server cannot be reached. It hides again as soon as a request gets through.
 */
export function OfflineBanner() {
  const browserOnline = useBrowserOnline();
  const serverReachable = useConnectivityStore((s) => s.serverReachable);
  useReachabilityProbe(serverReachable, browserOnline);
  if (browserOnline && serverReachable) return null;
  return (
    <div className="offline-banner" role="alert">
      <strong>Sei offline</strong>
      <span>Alcune funzioni potrebbero non essere disponibili</span>
    </div>
  );
}
