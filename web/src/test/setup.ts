import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';
import { useToastStore } from '@/components/ui/toast';
import { useSessionStore } from '@/stores/session';

// Pages are lazy routes (code splitting): their first render waits for a dynamic import, which
// a loaded machine can take over a second to transform.
configure({ asyncUtilTimeout: 5_000 });

afterEach(() => {
  cleanup();
  // zustand stores are module singletons: reset them between tests.
  useToastStore.getState().clear();
  useSessionStore.setState({ session: null });
  localStorage.clear();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});
