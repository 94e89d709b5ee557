import { TEST_CONFIG } from './fixtures';
import { jsonResponse } from './utils';

type Handler = (init: RequestInit, url: URL) => Response | Promise<Response>;

/**
 * A tiny fetch fake: routes are "METHOD /path" → handler. Unknown routes answer 404 in the API's
 * error shape; `GET /api/config` answers {@link TEST_CONFIG} unless given. Returns the mock so tests
 * can inspect calls.
 */
export function fakeServer(given: Record<string, Handler | unknown>) {
  const routes: Record<string, Handler | unknown> = { 'GET /api/config': TEST_CONFIG, ...given };
  const mock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const key = `${(init.method ?? 'GET').toUpperCase()} ${url.pathname}`;
    const route = routes[key];
    if (route === undefined) return jsonResponse({ detail: 'Risorsa non trovata.', code: 'not_found' }, 404);
    if (typeof route === 'function') return (route as Handler)(init, url);
    return jsonResponse(route);
  });
  vi.stubGlobal('fetch', mock);
  return mock;
}

export function callsTo(mock: ReturnType<typeof fakeServer>, method: string, path: string) {
  return mock.mock.calls.filter(([input, init]) => {
    const url = new URL(String(input), 'http://localhost');
    return url.pathname === path && ((init as RequestInit | undefined)?.method ?? 'GET').toUpperCase() === method;
  });
}
