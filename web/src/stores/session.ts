import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import type { Session } from '@/types/api';

export const SESSION_STORAGE_KEY = 'fotopronta-session';
/** The service worker's cache of API reads for offline use (vite.config.ts `runtimeCaching`). */
export const API_CACHE_NAME = 'fotopronta-api';

/** Forget the signed-in user's cached API answers (another person may sign in on this browser). */
function dropApiCache() {
  if (typeof caches !== 'undefined') void caches.delete(API_CACHE_NAME).catch(() => undefined);
}

interface SessionState {
  session: Session | null;
  setSession: (session: Session) => void;
  clearSession: () => void;
}

/** The signed-in session (tokens + auth user), persisted in localStorage. */
export const useSessionStore = create<SessionState>()(
  persist(
    (set) => ({
      session: null,
      setSession: (session) => set({ session }),
      clearSession: () => {
        dropApiCache();
        set({ session: null });
      },
    }),
    {
      name: SESSION_STORAGE_KEY,
      storage: createJSONStorage(() => localStorage),
      partialize: (state) => ({ session: state.session }),
    },
  ),
);

export const getAccessToken = () => useSessionStore.getState().session?.access_token ?? null;
