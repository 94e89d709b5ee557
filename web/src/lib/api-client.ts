import { env } from '@/config/env';
import { noteResponse, useConnectivityStore } from '@/stores/connectivity';
import { useSessionStore } from '@/stores/session';
import type { Session } from '@/types/api';

export const GENERIC_ERROR = 'Si è verificato un errore imprevisto. Riprova.';
export const NETWORK_ERROR = 'Impossibile contattare il server. Controlla la connessione e riprova.';

/** Provider messages that SPEC §8 asks us to show in Italian. */
const KNOWN_MESSAGES: Record<string, string> = {
  'user already registered': 'Un utente con questa email è già registrato',
  'invalid login credentials': 'Email o password non corretti',
};

export function translateMessage(message: string): string {
  return KNOWN_MESSAGES[message.trim().toLowerCase()] ?? message;
}

/** An API failure. `detail` is the Italian message to show the user. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | null;
  readonly detail: string;
  /** Optional toast title suggested by the server (SPEC §8 titles). */
  readonly title: string | null;

  constructor(status: number, detail: string, code: string | null = null, title: string | null = null) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.title = title;
  }
}

/** The server's toast title for an error, else `fallback`. */
export function errorTitle(error: unknown, fallback: string): string {
  return error instanceof ApiError && error.title ? error.title : fallback;
}

/** The message to show for any error thrown by the client (or anything else). */
export function errorMessage(error: unknown, fallback = GENERIC_ERROR): string {
  if (error instanceof ApiError) return error.detail || fallback;
  return fallback;
}

function detailFrom(body: unknown): { detail: string | null; code: string | null; title?: string | null } {
  if (!body || typeof body !== 'object') return { detail: null, code: null };
  const { detail, code, title } = body as { detail?: unknown; code?: unknown; title?: unknown };
  const codeStr = typeof code === 'string' ? code : null;
  const titleStr = typeof title === 'string' && title.trim() !== '' ? title : null;
  if (typeof detail === 'string' && detail.trim() !== '') {
    return { detail: translateMessage(detail), code: codeStr, title: titleStr };
  }
  // FastAPI validation errors: detail is a list of {msg, loc}.
  if (Array.isArray(detail) && detail.length > 0) {
    const msgs = detail
      .map((d) => (d && typeof d === 'object' && typeof (d as { msg?: unknown }).msg === 'string' ? (d as { msg: string }).msg : null))
      .filter((m): m is string => m !== null);
    if (msgs.length > 0) return { detail: msgs.join('; '), code: codeStr ?? 'validation_error' };
  }
  return { detail: null, code: codeStr };
}

async function toApiError(response: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    const text = await response.text();
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: the generic message */
  }
  const { detail, code, title } = detailFrom(body);
  return new ApiError(response.status, detail ?? GENERIC_ERROR, code, title ?? null);
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** JSON body (serialised, with Content-Type set). */
  json?: unknown;
  /** Raw body, e.g. FormData for multipart uploads. */
  body?: BodyInit;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
  /** Skip the bearer token (login, sign-up...). */
  anonymous?: boolean;
}

export function buildUrl(path: string, query?: RequestOptions['query']): string {
  let url = `${env.API_URL}${path}`;
  if (query) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    if (qs) url += (url.includes('?') ? '&' : '?') + qs;
  }
  return url;
}

let refreshing: Promise<boolean> | null = null;

/** Rotates the session with the refresh token once; concurrent 401s share one attempt. */
async function refreshSession(): Promise<boolean> {
  const { session, setSession, clearSession } = useSessionStore.getState();
  if (!session?.refresh_token) return false;
  refreshing ??= (async () => {
    try {
      const res = await fetch(buildUrl('/api/auth/refresh'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ refresh_token: session.refresh_token }),
      });
      if (!res.ok) {
        clearSession();
        return false;
      }
      setSession((await res.json()) as Session);
      return true;
    } catch {
      return false;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/**
 * fetch wrapper: adds `Authorization: Bearer <access_token>`, retries once after a token refresh
 * on 401, and turns error responses `{detail, code}` into an ApiError carrying the Italian detail.
 * Network errors and answers from the service worker's offline cache mark the server unreachable
 * (`stores/connectivity.ts`, the offline banner); any live answer marks it reachable again.
 * Returns the raw Response (for blobs) — see `api` for JSON.
 */
export async function apiFetch(path: string, options: RequestOptions = {}, retried = false): Promise<Response> {
  const headers = new Headers({ Accept: 'application/json' });
  let body = options.body;
  if (options.json !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(options.json);
  }
  const token = options.anonymous ? null : useSessionStore.getState().session?.access_token;
  if (token) headers.set('Authorization', `Bearer ${token}`);

  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), {
      method: options.method ?? (body !== undefined ? 'POST' : 'GET'),
      headers,
      body,
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    useConnectivityStore.getState().markUnreachable();
    throw new ApiError(0, NETWORK_ERROR, 'network_error');
  }
  noteResponse(response);

  if (response.status === 401 && token && !retried) {
    if (await refreshSession()) return apiFetch(path, options, true);
    useSessionStore.getState().clearSession();
  }
  if (!response.ok) throw await toApiError(response);
  return response;
}

/** JSON request; resolves to the parsed body (or undefined for empty responses). */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await apiFetch(path, options);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  if (!text) return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(response.status, GENERIC_ERROR, 'invalid_json');
  }
}
