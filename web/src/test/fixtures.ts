import { filterGroup, latestJob, resultDetails } from '@/lib/photos';
import type { AppConfig, Photo, PhotoJob, Profile } from '@/types/api';

/** What `GET /api/config` answers with the server's defaults (fotopronta/domain.py, settings). */
export const TEST_CONFIG: AppConfig = {
  job_costs: { background_removal: 1, smart_backgrounds: 2, background_removal_human: 3 },
  free_rework_days: 7,
  free_credits: 15,
  max_upload_bytes: 50 * 1024 * 1024,
  max_upload_megapixels: 80,
  accepted_formats: ['JPG', 'PNG', 'WebP', 'GIF', 'BMP', 'TIFF', 'HEIC', 'AVIF', 'RAW (CR2, NEF, ARW, DNG, RAF, ORF, RW2, MRW, X3F)'],
  accepted_extensions: ['.jpg', '.jpeg', '.png', '.webp', '.gif', '.bmp', '.tif', '.tiff', '.heic', '.heif', '.avif', '.cr2', '.nef', '.arw', '.dng', '.raf', '.orf', '.rw2', '.mrw', '.x3f'],
};

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
    max_concurrent_jobs: 5,
    specializations: null,
    default_brand: null,
    default_category: null,
    created_at: '2025-01-01T10:00:00Z',
    updated_at: '2025-01-01T10:00:00Z',
    ...overrides,
  };
}

/** A job as `JobPublic` sends it: an AI background removal, pending; `overrides` for the rest. */
export function makeJob(overrides: Partial<PhotoJob> = {}): PhotoJob {
  return {
    id: 'j1',
    photo_id: 'p1',
    job_type: 'background_removal',
    status: 'pending',
    progress_percentage: 0,
    error_message: null,
    processing_details: null,
    background_category: null,
    priority: 1,
    assigned_to: null,
    client_notes: null,
    graphic_notes: null,
    deadline: null,
    started_at: null,
    created_at: '2025-01-01T10:00:00Z',
    completed_at: null,
    ...overrides,
  };
}

export function makePhoto(overrides: Partial<Photo> = {}, jobOverrides: Partial<Photo['jobs'][number]> | null = {}): Photo {
  return {
    id: 'p1',
    user_id: 'u1',
    original_filename: 'IMG_0001.jpg',
    upload_path: 'u1/original.jpg',
    file_size: 204800,
    file_format: 'image/jpeg',
    status: 'processed',
    created_at: new Date(Date.now() - 5 * 60_000).toISOString(),
    processed_path: 'u1/processed.jpg',
    files_deleted_at: null,
    width: 1200,
    height: 1200,
    can_rework: false,
    can_reprocess: false,
    jobs:
      jobOverrides === null
        ? []
        : [
            makeJob({
              status: 'completed',
              progress_percentage: 100,
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
              completed_at: '2025-01-01T10:01:00Z',
              ...jobOverrides,
            }),
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
        queued: photos.filter((p) => (p.status === 'uploaded' || p.status === 'processing') && !['failed', 'rejected_human'].includes(latestJob(p)?.status ?? '')).length,
        rejected: photos.filter((p) => latestJob(p)?.status === 'rejected_human').length,
        designer_queue: photos.filter((p) => ['pending_human', 'assigned_to_graphic'].includes(latestJob(p)?.status ?? '')).length,
      },
    };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
}
