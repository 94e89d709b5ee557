import { create } from 'zustand';

/**
 * Header the service worker adds to an API read it answers from its cache because the network failed
 * (vite.config.ts `runtimeCaching`, plugin `cachedResponseWillBeUsed`; the literal is repeated there
 * because workbox serialises that function's source into the worker).
 */
export const SERVED_FROM_CACHE_HEADER = 'X-FotoPronta-Served-From-Cache';

interface ConnectivityState {
  /** False after a request failed with a network error or was answered from the offline cache. */
  serverReachable: boolean;
  /** A response came from the server itself. */
  markReachable: () => void;
  /** A request could not reach the server (network error, or the worker fell back to its cache). */
  markUnreachable: () => void;
}

/**
 * Whether the API server answers, as seen by the app's own requests. The browser's `navigator.onLine`
 * says only whether a network interface is up; a laptop on a network that does not reach the server
 * (captive portal, VPN, server down) is just as offline for the seller.
 */
export const useConnectivityStore = create<ConnectivityState>()((set, get) => ({
  serverReachable: true,
  markReachable: () => {
    if (!get().serverReachable) set({ serverReachable: true });
  },
  markUnreachable: () => {
    if (get().serverReachable) set({ serverReachable: false });
  },
}));

/** Record what one API response says about the server: answered live, or from the worker's cache. */
export function noteResponse(response: Response): void {
  const { markReachable, markUnreachable } = useConnectivityStore.getState();
  if (response.headers.get(SERVED_FROM_CACHE_HEADER) === '1') markUnreachable();
  else markReachable();
}
