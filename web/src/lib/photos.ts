import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { BadgeTone } from '@/components/ui/badge';
import { PHOTOS_POLL_MS } from '@/config/constants';
import { api } from '@/lib/api-client';
import type { Photo, PhotoCounts, PhotoJob, PhotoPage, ProcessingDetails } from '@/types/api';

export const PHOTOS_KEY = ['photos'] as const;

/** The server's orders for `GET /api/photos` (`status`: errors, in progress, waiting, completed). */
export type PhotoSort = 'newest' | 'oldest' | 'name' | 'status';

export interface PhotoListParams {
  q?: string;
  status?: StatusFilter;
  sort?: PhotoSort;
  limit?: number;
  cursor?: string | null;
}

export const PHOTOS_PAGE_SIZE = 24;

/** `GET /api/photos` with search, status filter, sort and cursor sent to the server (empty values left out). */
export function getPhotoPage({ q, status, sort, limit, cursor }: PhotoListParams = {}): Promise<PhotoPage> {
  const query: Record<string, string> = {};
  if (q?.trim()) query.q = q.trim();
  if (status && status !== 'all') query.status = status;
  if (sort && sort !== 'newest') query.sort = sort;
  if (limit) query.limit = String(limit);
  if (cursor) query.cursor = cursor;
  return api<PhotoPage>('/api/photos', { query });
}

/** The newest job of a photo (the one its card shows), or null. */
export function latestJob(photo: Pick<Photo, 'jobs'>): PhotoJob | null {
  if (!photo.jobs?.length) return null;
  return [...photo.jobs].sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
}

/**
 * What the retouch pipeline found for the photo's delivered result (SEO name, colours, brand…): the
 * newest job that has `processing_details`. A free rework (a human job without details) keeps the AI
 * result's name, also when the designers reject it.
 */
export function resultDetails(photo: Pick<Photo, 'jobs'>): ProcessingDetails | null {
  const withDetails = (photo.jobs ?? []).filter((j) => j.processing_details);
  if (withDetails.length === 0) return null;
  return [...withDetails].sort((a, b) => b.created_at.localeCompare(a.created_at))[0].processing_details;
}

const FINISHED = new Set(['completed', 'failed', 'completed_human', 'rejected_human']);

/** A job still moving: pending, processing, human steps, waiting for credits... */
export function isJobActive(job: Pick<PhotoJob, 'status'> | null): boolean {
  return job !== null && !FINISHED.has(job.status);
}

/** True while any photo has an unfinished job (the photo list then polls). */
export function hasActiveJobs(photos: Photo[] | undefined): boolean {
  return (photos ?? []).some((p) => (p.jobs ?? []).some((j) => isJobActive(j)));
}

/** Some photo is still moving according to the server's counters (pending, waiting or processing). */
const countsActive = (counts: PhotoCounts | undefined) => (counts ? counts.processing + counts.pending > 0 : false);

/**
 * The caller's newest photos (the first page, `limit` of them) with the counters; polls every 3 s while any
 * job is unfinished. `data` is the page: `items`, `next_cursor`, `counts`.
 */
export function useRecentPhotos(limit = PHOTOS_PAGE_SIZE) {
  return useQuery({
    queryKey: [...PHOTOS_KEY, 'recent', limit],
    queryFn: () => getPhotoPage({ limit }),
    refetchInterval: (query) => (hasActiveJobs(query.state.data?.items) || countsActive(query.state.data?.counts) ? PHOTOS_POLL_MS : false),
  });
}

/**
 * The /photos list: pages of `PHOTOS_PAGE_SIZE` for a search, status filter and sort done by the server;
 * `fetchNextPage()` follows `next_cursor` ('Carica altre'). Polls every 3 s (every loaded page) while any
 * loaded photo has an unfinished job; the previous result stays on screen while a new search loads.
 */
export function usePhotoPages({ q = '', status = 'all', sort = 'newest' }: Pick<PhotoListParams, 'q' | 'status' | 'sort'> = {}) {
  return useInfiniteQuery({
    queryKey: [...PHOTOS_KEY, 'list', { q: q.trim(), status, sort }],
    queryFn: ({ pageParam }) => getPhotoPage({ q, status, sort, cursor: pageParam, limit: PHOTOS_PAGE_SIZE }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (hasActiveJobs(query.state.data?.pages.flatMap((p) => p.items)) ? PHOTOS_POLL_MS : false),
  });
}

const AI_JOB_TYPES = new Set(['background_removal', 'smart_backgrounds']);

/**
 * The photo's delivered AI result is one the retouch pipeline is unsure of
 * (`processing_details.needs_review`): its card shows 'Da verificare' and offers the designer rework.
 */
export function needsReview(photo: Pick<Photo, 'jobs'>): boolean {
  const job = latestJob(photo);
  return job !== null && AI_JOB_TYPES.has(job.job_type) && job.status === 'completed' && job.processing_details?.needs_review === true;
}

/** The pipeline's confidence as a whole percentage (0–100), or null when it gave none. */
export function confidencePercent(job: Pick<PhotoJob, 'processing_details'> | null): number | null {
  const value = job?.processing_details?.confidence;
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  return Math.round(Math.min(Math.max(value, 0), 1) * 100);
}

/** Badge labels (SPEC §4). `null` = the photo has no job. */
const STATUS_LABELS: Record<string, string> = {
  pending: 'In attesa',
  processing: 'Processamento AI',
  completed: 'Completata',
  failed: 'Errore',
  pending_human: 'In coda per grafici',
  assigned_to_graphic: 'Assegnato a grafico',
  in_progress_human: 'In lavorazione',
  completed_human: 'Processata da grafico',
  rejected_human: 'Rifiutata',
  waiting_for_credits: 'In attesa di crediti',
};

export function jobStatusLabel(status: string | null | undefined): string {
  if (status === null || status === undefined) return 'Non processata';
  return STATUS_LABELS[status] ?? 'Sconosciuto';
}

export function jobStatusTone(status: string | null | undefined): BadgeTone {
  switch (status) {
    case 'completed':
    case 'completed_human':
      return 'success';
    case 'failed':
    case 'rejected_human':
      return 'danger';
    case 'processing':
    case 'in_progress_human':
      return 'info';
    case 'pending':
    case 'pending_human':
    case 'assigned_to_graphic':
    case 'waiting_for_credits':
      return 'warning';
    default:
      return 'neutral';
  }
}

export type StatusFilter = 'all' | 'completed' | 'processing' | 'failed' | 'pending';

/** Filter groupings (SPEC §4); 'pending' takes every other waiting state. */
export function filterGroup(status: string | null | undefined): Exclude<StatusFilter, 'all'> {
  switch (status) {
    case 'completed':
    case 'completed_human':
      return 'completed';
    case 'processing':
    case 'in_progress_human':
      return 'processing';
    case 'failed':
    case 'rejected_human':
      return 'failed';
    default:
      return 'pending';
  }
}

/** Dashboard counters (SPEC §4) from the server's `counts`: processed; uploaded and processing count as in queue. */
export function photoStats(counts: PhotoCounts | undefined) {
  return { total: counts?.total ?? 0, processed: counts?.processed ?? 0, queued: counts?.queued ?? 0 };
}
