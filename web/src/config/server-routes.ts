/**
 * Paths the FastAPI server answers itself (API, health check, development pages such as the test
 * checkout `/dev/checkout/…` and the outbox `/dev/mail`, the OpenAPI docs, the public API `/v1` with its
 * reference `/v1/docs` and the remove.bg-compatible `/v1.0`, `/robots.txt` and
 * `/sitemap.xml`). The service worker's
 * navigation fallback must never answer them with the app shell; `vite.config.ts`
 * passes this list to workbox's `navigateFallbackDenylist`.
 */
export const SERVER_PATH_PATTERNS: RegExp[] = [
  /^\/api(\/|$)/,
  /^\/v1(\.0)?(\/|$)/,
  /^\/healthz(\/|$)/,
  /^\/dev(\/|$)/,
  /^\/docs(\/|$)/,
  /^\/redoc(\/|$)/,
  /^\/openapi\.json$/,
  /^\/(robots\.txt|sitemap\.xml)$/,
];

/** Whether `pathname` belongs to the server rather than to the single-page app. */
export function isServerPath(pathname: string): boolean {
  return SERVER_PATH_PATTERNS.some((pattern) => pattern.test(pathname));
}
