import { useEffect, useState } from 'react';
import { apiFetch } from './api-client';

/**
 * Loads an image that needs the bearer token (an <img src> cannot send it) and returns an object URL,
 * or null before the first image arrives, when `path` is null or when loading fails.
 *
 * A new `path` or `key` (e.g. the photo's status) reloads it, and the image shown so far stays until the
 * next one has arrived: the <img> keeps its element and only its src changes, so a card whose photo is
 * being retouched does not blink to the placeholder icon. Each object URL is revoked once a newer one
 * replaces it, and the last one on unmount.
 */
export function useAuthImage(path: string | null, key = ''): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!path || typeof URL.createObjectURL !== 'function') return undefined;
    const controller = new AbortController();
    apiFetch(path, { signal: controller.signal })
      .then((response) => response.blob())
      .then((blob) => {
        if (!controller.signal.aborted) setUrl(URL.createObjectURL(blob));
      })
      .catch(() => {
        if (!controller.signal.aborted) setUrl(null);
      });
    return () => controller.abort();
  }, [path, key]);
  useEffect(() => {
    if (!url) return undefined;
    return () => URL.revokeObjectURL(url);
  }, [url]);
  return path ? url : null;
}
