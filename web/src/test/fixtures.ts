import { filterGroup, resultDetails, shownJob } from '@/lib/photos';
import type { AppConfig, Photo, PhotoJob, Profile } from '@/types/api';
import { utc } from './utc';

/** What `GET /api/config` answers with the server's defaults (fotopronta/domain.py, settings). */
export const TEST_CONFIG: AppConfig = {
  job_costs: { background_removal: 1, smart_backgrounds: 2, background_removal_human: 3 },
  free_rework_days: 7,
  free_credits: 15,
  max_upload_bytes: 50 * 1024 * 1024,
  max_upload_megapixels: 80,
  accepted_formats: ['JPG', 'PNG', 'WebP', 'GIF', 'BMP', 'TIFF', 'HEIC', 'AVIF', 'RAW (CR2, NEF, ARW, DNG, RAF, ORF, RW2, MRW, X3F)'],
  accepted_extensions: ['.jpg', '.jpeg', '.png', '.webp', '.gif', '.bmp', '.tif', '.tiff', '.heic', '.heif', '.avif', '.cr2', '.nef', '.arw', '.dng', '.raf', '.orf', '.rw2', '.mrw', '.x3f'],
  batch_limits: { standard: { max_files: 10, max_bytes: 100 * 1024 * 1024 }, admin: { max_files: 25, max_bytes: 250 * 1024 * 1024 } },
  job_status_labels: {
    pending: 'In attesa',
    waiting_for_credits: 'In attesa di crediti',
    processing: 'Processamento AI',
    completed: 'Completata',
    failed: 'Errore',
    pending_human: 'In coda per grafici',
    assigned_to_graphic: 'Assegnato a grafico',
    in_progress_human: 'In lavorazione',
    completed_human: 'Processata da grafico',
    rejected_human: 'Rifiutata',
  },
  no_job_label: 'Non processata',
  job_type_labels: { background_removal: 'Ritocco AI', smart_backgrounds: 'Sfondi intelligenti', background_removal_human: 'Ritocco del team grafico' },
  status_groups: {
    active: ['assigned_to_graphic', 'in_progress_human', 'pending', 'pending_human', 'processing', 'waiting_for_credits'],
    final: ['completed', 'completed_human', 'failed', 'rejected_human'],
    delivered: ['completed', 'completed_human'],
    ended_undelivered: ['failed', 'rejected_human'],
    working: ['in_progress_human', 'processing'],
    designer_queue: ['assigned_to_graphic', 'pending_human'],
    with_designer: ['assigned_to_graphic', 'in_progress_human'],
    cancellable: ['assigned_to_graphic', 'pending_human'],
    reworkable: ['completed', 'completed_human'],
    reprocessable: ['failed'],
  },
  status_filters: {
    pending: 'pending',
    waiting_for_credits: 'pending',
    processing: 'processing',
    completed: 'completed',
    failed: 'failed',
    pending_human: 'pending',
    assigned_to_graphic: 'pending',
    in_progress_human: 'processing',
    completed_human: 'completed',
    rejected_human: 'failed',
  },
  presets: [
    { value: 'original', label: 'Dimensioni originali' },
    { value: 'amazon', label: 'Amazon – 2000×2000, prodotto all’85%' },
    { value: 'zalando', label: 'Zalando – 1801×2600' },
    { value: 'etsy', label: 'Etsy – lato lungo 2000 px' },
    { value: 'shopify', label: 'Shopify – 2048×2048' },
  ],
  default_preset: 'original',
  background_categories: [
    { value: 'minimal_studio', label: 'Studio minimal' },
    { value: 'home_lifestyle', label: 'Casa e lifestyle' },
    { value: 'outdoor_natural', label: 'Esterni naturali' },
    { value: 'professional_office', label: 'Ufficio professionale' },
    { value: 'seasonal_themed', label: 'Stagionale a tema' },
  ],
  photos_page_size: 24,
  photos_page_max: 100,
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
    created_at: utc(2025, 1, 1, 10),
    updated_at: utc(2025, 1, 1, 10),
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
    created_at: utc(2025, 1, 1, 10),
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
              completed_at: utc(2025, 1, 1, 10, 1),
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
      if (status !== 'all' && filterGroup(shownJob(p)?.status, TEST_CONFIG) !== status) return false;
      const seo = resultDetails(p)?.seo_filename ?? '';
      return !q || p.original_filename.toLowerCase().includes(q) || seo.toLowerCase().includes(q);
    });
    const groups = photos.map((p) => filterGroup(shownJob(p)?.status, TEST_CONFIG));
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
        queued: photos.filter((p) => (p.status === 'uploaded' || p.status === 'processing') && !['failed', 'rejected_human'].includes(shownJob(p)?.status ?? '')).length,
        rejected: photos.filter((p) => shownJob(p)?.status === 'rejected_human').length,
        designer_queue: photos.filter((p) => ['pending_human', 'assigned_to_graphic'].includes(shownJob(p)?.status ?? '')).length,
      },
    };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
}

/** The first bytes of a JPEG: test files made with them pass the upload page's magic-byte check. */
export const JPEG_HEAD = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
