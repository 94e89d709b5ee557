import { useEffect, useState } from 'react';
import { apiFetch } from './api-client';

/**
 * Loads an image that needs the bearer token (an <img src> cannot send it) and returns an object URL,
 * or null while loading / when it fails. `key` changes (e.g. the photo's status) reload it; the URL is
 * revoked on change and unmount.
 */
export function useAuthImage(path: string | null, key = ''): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!path || typeof URL.createObjectURL !== 'function') return undefined;
    const controller = new AbortController();
    let objectUrl: string | null = null;
    apiFetch(path, { signal: controller.signal })
      .then((response) => response.blob())
      .then((blob) => {
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      })
      .catch(() => setUrl(null));
    return () => {
      controller.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
      setUrl(null);
    };
  }, [path, key]);
  return url;
}
