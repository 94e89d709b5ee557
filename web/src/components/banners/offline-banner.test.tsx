import { act, render, screen } from '@testing-library/react';
import { OfflineBanner } from '@/components/banners/offline-banner';
import { api } from '@/lib/api-client';
import { SERVED_FROM_CACHE_HEADER, useConnectivityStore } from '@/stores/connectivity';
import { jsonResponse } from '@/test/utils';

function cachedAnswer(body: unknown): Response {
  const response = jsonResponse(body);
  response.headers.set(SERVED_FROM_CACHE_HEADER, '1');
  return response;
}

describe('OfflineBanner', () => {
  beforeEach(() => useConnectivityStore.setState({ serverReachable: true }));

  it('shows while API requests fail with network errors, with the browser online, and hides when one gets through', async () => {
    expect(navigator.onLine).toBe(true);
    render(<OfflineBanner />);
    expect(screen.queryByRole('alert')).toBeNull();

    // Every request fails, the banner's /healthz probe too.
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('Failed to fetch')));
    await act(async () => {
      await api('/api/photos').catch(() => undefined);
    });
    expect(screen.getByRole('alert')).toHaveTextContent('Sei offline');
    expect(screen.getByRole('alert')).toHaveTextContent('Alcune funzioni potrebbero non essere disponibili');

    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse({ items: [] })));
    await act(async () => {
      await api('/api/photos');
    });
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("shows when the service worker answers from its cache, since the network failed", async () => {
    render(<OfflineBanner />);
    vi.stubGlobal('fetch', vi.fn().mockImplementation(async (input: RequestInfo | URL) => {
      if (String(input).endsWith('/healthz')) throw new TypeError('Failed to fetch');
      return cachedAnswer({ items: [] });
    }));
    await act(async () => {
      await expect(api('/api/photos')).resolves.toEqual({ items: [] });
    });
    expect(screen.getByRole('alert')).toHaveTextContent('Sei offline');
  });

  it('probes /healthz while the server is unreachable and hides once it answers, even with 503', async () => {
    vi.useFakeTimers();
    try {
      const fetchMock = vi.fn().mockRejectedValue(new TypeError('Failed to fetch'));
      vi.stubGlobal('fetch', fetchMock);
      act(() => useConnectivityStore.getState().markUnreachable());
      render(<OfflineBanner />);
      expect(screen.getByRole('alert')).toBeInTheDocument();
      await act(async () => {
        await vi.advanceTimersByTimeAsync(5_000);
      });
      expect(fetchMock.mock.calls.some(([url]) => String(url).endsWith('/healthz'))).toBe(true);
      expect(screen.getByRole('alert')).toBeInTheDocument();

      fetchMock.mockResolvedValue(jsonResponse({ status: 'error' }, 503));
      await act(async () => {
        await vi.advanceTimersByTimeAsync(5_000);
      });
      expect(screen.queryByRole('alert')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows while the browser reports no network', () => {
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    try {
      render(<OfflineBanner />);
      expect(screen.getByRole('alert')).toHaveTextContent('Sei offline');
    } finally {
      onLine.mockRestore();
    }
  });
});
