import { api, apiFetch, ApiError, errorMessage, GENERIC_ERROR, NETWORK_ERROR } from '@/lib/api-client';
import { useSessionStore } from '@/stores/session';
import { jsonResponse, testSession } from '@/test/utils';

describe('api client', () => {
  it('adds the bearer token from the session store', async () => {
    useSessionStore.getState().setSession(testSession);
    const fetchMock = vi.fn().mockResolvedValue(jsonResponse({ ok: true }));
    vi.stubGlobal('fetch', fetchMock);

    await expect(api('/api/me')).resolves.toEqual({ ok: true });
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/me');
    expect(new Headers(init.headers).get('Authorization')).toBe('Bearer access-1');
  });

  it('sends JSON bodies and omits the token for anonymous calls', async () => {
    useSessionStore.getState().setSession(testSession);
    const fetchMock = vi.fn().mockResolvedValue(jsonResponse({}, 201));
    vi.stubGlobal('fetch', fetchMock);

    await api('/api/auth/signup', { method: 'POST', json: { email: 'a@b.it' }, anonymous: true });
    const [, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    const headers = new Headers(init.headers);
    expect(init.method).toBe('POST');
    expect(init.body).toBe('{"email":"a@b.it"}');
    expect(headers.get('Content-Type')).toBe('application/json');
    expect(headers.get('Authorization')).toBeNull();
  });

  it('turns {detail, code} error bodies into an ApiError with the Italian detail', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse({ detail: 'Crediti insufficienti', code: 'insufficient_credits' }, 402)));
    const error = await api('/api/photos').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 402, code: 'insufficient_credits', detail: 'Crediti insufficienti' });
    expect(errorMessage(error)).toBe('Crediti insufficienti');
  });

  it('translates the provider messages SPEC §8 names', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(jsonResponse({ detail: 'Invalid login credentials' }, 400)));
    await expect(api('/api/auth/login', { json: {} })).rejects.toMatchObject({ detail: 'Email o password non corretti' });
  });

  it('falls back to a generic Italian message for non-JSON errors and network failures', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(new Response('<html>Bad gateway</html>', { status: 502 })));
    await expect(api('/api/me')).rejects.toMatchObject({ status: 502, detail: GENERIC_ERROR });

    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('Failed to fetch')));
    await expect(api('/api/me')).rejects.toMatchObject({ status: 0, detail: NETWORK_ERROR, code: 'network_error' });
    expect(errorMessage(new Error('boom'))).toBe(GENERIC_ERROR);
  });

  it('refreshes the session once on 401 and retries with the new token', async () => {
    useSessionStore.getState().setSession(testSession);
    const fetchMock = vi
      .fn()
      .mockResolvedValueOnce(jsonResponse({ detail: 'Sessione scaduta', code: 'token_expired' }, 401))
      .mockResolvedValueOnce(jsonResponse({ ...testSession, access_token: 'access-2', refresh_token: 'refresh-2' }))
      .mockResolvedValueOnce(jsonResponse({ id: 'u1' }));
    vi.stubGlobal('fetch', fetchMock);

    await expect(api('/api/me')).resolves.toEqual({ id: 'u1' });
    expect(fetchMock.mock.calls[1][0]).toBe('/api/auth/refresh');
    expect(JSON.parse((fetchMock.mock.calls[1][1] as RequestInit).body as string)).toEqual({ refresh_token: 'refresh-1' });
    expect(new Headers((fetchMock.mock.calls[2][1] as RequestInit).headers).get('Authorization')).toBe('Bearer access-2');
    expect(useSessionStore.getState().session?.refresh_token).toBe('refresh-2');
  });

  it('clears the session when the refresh is refused', async () => {
    useSessionStore.getState().setSession(testSession);
    vi.stubGlobal(
      'fetch',
      vi
        .fn()
        .mockResolvedValueOnce(jsonResponse({ detail: 'Sessione scaduta' }, 401))
        .mockResolvedValueOnce(jsonResponse({ detail: 'Token non valido' }, 401)),
    );
    await expect(apiFetch('/api/me')).rejects.toMatchObject({ status: 401, detail: 'Sessione scaduta' });
    expect(useSessionStore.getState().session).toBeNull();
  });
});
