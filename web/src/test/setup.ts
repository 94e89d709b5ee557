import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { useToastStore } from '@/components/ui/toast';
import { useSessionStore } from '@/stores/session';

afterEach(() => {
  cleanup();
  // zustand stores are module singletons: reset them between tests.
  useToastStore.getState().clear();
  useSessionStore.setState({ session: null });
  localStorage.clear();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});
