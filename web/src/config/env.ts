/**
 * Environment, validated once at start-up. The API is same-origin under /api by default;
 * VITE_API_URL may point elsewhere in development (it must then be an absolute http(s) URL).
 */
function readApiUrl(): string {
  const raw = (import.meta.env.VITE_API_URL as string | undefined)?.trim() ?? '';
  if (raw === '') return '';
  if (!/^https?:\/\//.test(raw)) {
    throw new Error(`VITE_API_URL deve essere un URL http(s) assoluto, ricevuto: ${raw}`);
  }
  return raw.replace(/\/+$/, '');
}

export const env = {
  API_URL: readApiUrl(),
} as const;
