import { QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { InstallBanner } from '@/components/banners/install-banner';
import { OfflineBanner } from '@/components/banners/offline-banner';
import { ErrorBoundary } from '@/components/errors/error-boundary';
import { Toaster } from '@/components/ui/toast';
import { createQueryClient } from '@/lib/query-client';
import { PwaUpdater } from './pwa';

/** App-wide providers: data cache, banners, toasts, the top-level error boundary. */
export function AppProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(createQueryClient);
  return (
    <ErrorBoundary name="app">
      <QueryClientProvider client={queryClient}>
        <OfflineBanner />
        {children}
        <InstallBanner />
        <Toaster />
        <PwaUpdater />
      </QueryClientProvider>
    </ErrorBoundary>
  );
}
