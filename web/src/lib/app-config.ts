import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { AppConfig } from '@/types/api';

export const CONFIG_KEY = ['config'] as const;

/** `GET /api/config` (public, no session needed). */
export const getConfig = () => api<AppConfig>('/api/config', { anonymous: true });

/**
 * The server's product constants (`GET /api/config`): credits per photo by job type, the free-rework
 * window, the sign-up credits and the upload limits. They change only with a deploy: read once per
 * page load and kept.
 */
export const useConfig = () => useQuery({ queryKey: CONFIG_KEY, queryFn: getConfig, staleTime: Infinity, gcTime: Infinity });

/** "1 credito a foto", "3 crediti a foto"; "… crediti a foto" while the costs load. */
export function creditsPerPhoto(cost: number | undefined): string {
  if (cost === undefined) return '… crediti a foto';
  return cost === 1 ? '1 credito a foto' : `${cost} crediti a foto`;
}

/** The server's accepted formats as an Italian list: "JPG, PNG, WebP e RAW (CR2, NEF)"; '…' while loading. */
export function formatList(formats: readonly string[] | undefined): string {
  if (!formats || formats.length === 0) return '…';
  if (formats.length === 1) return formats[0];
  return `${formats.slice(0, -1).join(', ')} e ${formats[formats.length - 1]}`;
}
