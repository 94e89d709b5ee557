import { apiFetch, api } from '@/lib/api-client';
import { saveBlob } from '@/lib/download';
import { resultDetails } from '@/lib/photos';
import type { Photo } from '@/types/api';

export type DownloadFormat = 'jpeg' | 'webp';

/** File name for a download: the job's SEO name (else the original's), with the format's extension. */
export function downloadName(photo: Photo, format: DownloadFormat): string {
  const seo = resultDetails(photo)?.seo_filename?.trim();
  const base = (seo || photo.original_filename || 'foto').replace(/\.[a-z0-9]{2,5}$/i, '');
  return `${base}.${format === 'webp' ? 'webp' : 'jpg'}`;
}

/** The file name a `Content-Disposition` header offers (`filename*=UTF-8''…` first, then `filename="…"`), or null. */
export function dispositionName(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // a malformed encoding: fall back to the plain name
    }
  }
  const plain = /filename="((?:[^"\\]|\\.)*)"/i.exec(header);
  return plain ? plain[1].replace(/\\(.)/g, '$1') : null;
}

/** `GET /api/photos/{id}/download` with the bearer token → saved under the server's SEO name (a
 * designer's result too, in its own format), else {@link downloadName}. */
export async function downloadPhoto(photo: Photo, format: DownloadFormat = 'jpeg'): Promise<void> {
  const response = await apiFetch(`/api/photos/${photo.id}/download`, { query: format === 'webp' ? { format: 'webp' } : undefined });
  saveBlob(await response.blob(), dispositionName(response.headers.get('Content-Disposition')) ?? downloadName(photo, format));
}

export const deletePhoto = (id: string) => api<unknown>(`/api/photos/${id}`, { method: 'DELETE' });
export const reprocessPhoto = (id: string) => api<unknown>(`/api/photos/${id}/reprocess`, { method: 'POST' });
/** Free rework by the designers, once, within 7 days of an AI delivery (DESIGN decisions). */
export const requestRework = (id: string, notes?: string) =>
  api<unknown>(`/api/photos/${id}/rework`, { method: 'POST', json: { notes: notes || null } });

/** `POST /api/photos/zip` with the selected ids → one ZIP of their results, each entry under its card's
 * SEO name, saved under the server's name ('Scarica selezionate'). */
export async function downloadZip(photoIds: string[]): Promise<void> {
  const response = await apiFetch('/api/photos/zip', { method: 'POST', json: { photo_ids: photoIds } });
  saveBlob(await response.blob(), dispositionName(response.headers.get('Content-Disposition')) ?? 'fotopronta-foto.zip');
}
