import { act, renderHook, waitFor } from '@testing-library/react';
import { useAuthImage } from '@/lib/use-auth-image';

/** A fetch whose responses the test releases one at a time, to see what the hook returns in between. */
function deferredFetch() {
  const pending: { path: string; resolve: (response: Response) => void }[] = [];
  const fetchMock = vi.fn(
    (path: string) =>
      new Promise<Response>((resolve) => {
        pending.push({ path, resolve });
      }),
  );
  return { fetchMock, pending };
}

describe('useAuthImage', () => {
  let created: string[];
  let revoked: string[];

  beforeEach(() => {
    created = [];
    revoked = [];
    let n = 0;
    // jsdom has no object URLs: a URL class of the test's own hands them out and records revocations
    class RecordingURL extends URL {
      static createObjectURL(): string {
        n += 1;
        created.push(`blob:image-${n}`);
        return `blob:image-${n}`;
      }
      static revokeObjectURL(url: string): void {
        revoked.push(url);
      }
    }
    vi.stubGlobal('URL', RecordingURL);
  });

  it('keeps the image shown until the next one has arrived, then revokes the old one', async () => {
    const { fetchMock, pending } = deferredFetch();
    vi.stubGlobal('fetch', fetchMock);
    const { result, rerender, unmount } = renderHook(({ path }) => useAuthImage(path), {
      initialProps: { path: '/api/photos/p1/thumbnail?v=uploaded' },
    });
    expect(result.current).toBeNull();
    await act(async () => pending[0].resolve(new Response('original')));
    await waitFor(() => expect(result.current).toBe('blob:image-1'));

    // the photo is retouched: a new version is asked for, the original stays on screen meanwhile
    rerender({ path: '/api/photos/p1/thumbnail?v=processed' });
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(2));
    expect(result.current).toBe('blob:image-1');
    expect(revoked).toEqual([]);

    await act(async () => pending[1].resolve(new Response('result')));
    await waitFor(() => expect(result.current).toBe('blob:image-2'));
    expect(revoked).toEqual(['blob:image-1']);

    unmount();
    expect(revoked).toEqual(['blob:image-1', 'blob:image-2']);
  });

  it('returns null for no path and when loading fails, and ignores a response that came too late', async () => {
    const { fetchMock, pending } = deferredFetch();
    vi.stubGlobal('fetch', fetchMock);
    const { result, rerender } = renderHook(({ path }: { path: string | null }) => useAuthImage(path), {
      initialProps: { path: '/api/photos/p1/thumbnail?v=a' as string | null },
    });
    // the path changes before the first answer: the first answer is dropped, not shown
    rerender({ path: '/api/photos/p1/thumbnail?v=b' });
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(2));
    await act(async () => pending[0].resolve(new Response('old')));
    expect(result.current).toBeNull();
    expect(created).toEqual([]);

    await act(async () => pending[1].resolve(new Response('{"detail":"Foto non trovata"}', { status: 404 })));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(2));
    expect(result.current).toBeNull();

    rerender({ path: null });
    expect(result.current).toBeNull();
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });
});
