import { filterGroup, latestJob, resultDetails } from '@/lib/photos';
import type { Photo, Profile } from '@/types/api';

export function makeProfile(overrides: Partial<Profile> = {}): Profile {
  return {
    id: 'u1',
    email: 'mario@example.com',
    first_name: 'Mario',
    last_name: 'Rossi',
    user_role: 'client',
    credits_remaining: 15,
    credits_expiry_date: null,
    is_active: true,
    created_at: '2025-01-01T10:00:00Z',
    ...overrides,
  };
}

export function makePhoto(overrides: Partial<Photo> = {}, jobOverrides: Partial<Photo['jobs'][number]> | null = {}): Photo {
  return {
    id: 'p1',
    original_filename: 'IMG_0001.jpg',
    file_size: 204800,
    file_format: 'image/jpeg',
    status: 'processed',
    created_at: new Date(Date.now() - 5 * 60_000).toISOString(),
    processed_path: 'u1/processed.jpg',
    jobs:
      jobOverrides === null
        ? []
        : [
            {
              id: 'j1',
              job_type: 'background_removal',
              status: 'completed',
              progress_percentage: 100,
              error_message: null,
              processing_details: {
                seo_filename: 'nike-scarpa-running-rossa.jpg',
                brand: 'Nike',
                category: 'Scarpe',
                colors: [
                  { hex: '#ff0000', name: 'rosso' },
                  { hex: '#ffffff', name: 'bianco' },
                  { hex: '#000000', name: 'nero' },
                  { hex: '#cccccc', name: 'grigio' },
                  { hex: '#0000ff', name: 'blu' },
                ],
              },
              created_at: '2025-01-01T10:00:00Z',
              completed_at: '2025-01-01T10:01:00Z',
              ...jobOverrides,
            },
          ],
    ...overrides,
  };
}

/**
 * A fake `GET /api/photos` over `photos` (newest first, as given) with the server's semantics: `q` on the
 * original or SEO name, `status` by the newest job's filter group, `limit` (default 24) and an index
 * cursor, `counts` over all photos. Use as a fake-server route handler.
 */
export function photoListHandler(photos: Photo[]) {
  return (_init: RequestInit, url: URL): Response => {
    const q = (url.searchParams.get('q') ?? '').toLowerCase();
    const status = url.searchParams.get('status') ?? 'all';
    const limit = Number(url.searchParams.get('limit') ?? '24');
    const start = Number(url.searchParams.get('cursor') ?? '0');
    const matches = photos.filter((p) => {
      if (status !== 'all' && filterGroup(latestJob(p)?.status) !== status) return false;
      const seo = resultDetails(p)?.seo_filename ?? '';
      return !q || p.original_filename.toLowerCase().includes(q) || seo.toLowerCase().includes(q);
    });
    const groups = photos.map((p) => filterGroup(latestJob(p)?.status));
    const body = {
      items: matches.slice(start, start + limit),
      next_cursor: start + limit < matches.length ? String(start + limit) : null,
      counts: {
        total: photos.length,
        completed: groups.filter((g) => g === 'completed').length,
        processing: groups.filter((g) => g === 'processing').length,
        failed: groups.filter((g) => g === 'failed').length,
        pending: groups.filter((g) => g === 'pending').length,
        processed: photos.filter((p) => p.status === 'processed').length,
        queued: photos.filter((p) => p.status === 'uploaded' || p.status === 'processing').length,
      },
    };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
}
