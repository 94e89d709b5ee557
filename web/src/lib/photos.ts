import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { BadgeTone } from '@/components/ui/badge';
import { PHOTOS_POLL_MS } from '@/config/constants';
import { api } from '@/lib/api-client';
import { useConfig } from '@/lib/app-config';
import type { AppConfig, Photo, PhotoCounts, PhotoJob, PhotoPage, ProcessingDetails } from '@/types/api';

/** The job-status rules the server gives in `GET /api/config` (fotopronta/domain.py): labels, groups, filter groups. */
export type StatusConfig = Pick<AppConfig, 'job_status_labels' | 'no_job_label' | 'status_groups' | 'status_filters'>;

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

/** The newest job of a photo (its progress and errors; the badge is {@link shownJob}'s), or null. */
export function latestJob(photo: Pick<Photo, 'jobs'>): PhotoJob | null {
  if (!photo.jobs?.length) return null;
  return [...photo.jobs].sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
}

/**
 * The job whose status the photo's badge, filter and counts show: the server's `shown_job_id` (after a
 * free rework that ended without a result, the delivery it was asked on: the seller still has it),
 * else the newest job.
 */
export function shownJob(photo: Pick<Photo, 'jobs' | 'shown_job_id'>): PhotoJob | null {
  return (photo.shown_job_id ? photo.jobs.find((j) => j.id === photo.shown_job_id) : undefined) ?? latestJob(photo);
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

/**
 * A job still moving (pending, processing, human steps, waiting for credits…): not in the server's
 * `final` group. While the config loads every job counts as moving, so the lists keep polling.
 */
export function isJobActive(job: Pick<PhotoJob, 'status'> | null, config: StatusConfig | undefined): boolean {
  return job !== null && !(config?.status_groups.final ?? []).includes(job.status);
}

/** True while any photo has an unfinished job (the photo list then polls). */
export function hasActiveJobs(photos: Photo[] | undefined, config: StatusConfig | undefined): boolean {
  return (photos ?? []).some((p) => (p.jobs ?? []).some((j) => isJobActive(j, config)));
}

/** Some photo is still moving according to the server's counters (pending, waiting or processing). */
const countsActive = (counts: PhotoCounts | undefined) => (counts ? counts.processing + counts.pending > 0 : false);

/**
 * The caller's newest photos (the first page, `limit` of them; the server's page size without one) with the
 * counters; polls every 3 s while any job is unfinished. `data` is the page: `items`, `next_cursor`, `counts`.
 */
export function useRecentPhotos(limit?: number) {
  const config = useConfig().data;
  return useQuery({
    queryKey: [...PHOTOS_KEY, 'recent', limit ?? null],
    queryFn: () => getPhotoPage({ limit }),
    refetchInterval: (query) =>
      hasActiveJobs(query.state.data?.items, config) || countsActive(query.state.data?.counts) ? PHOTOS_POLL_MS : false,
  });
}

/**
 * The /photos list: pages of the server's page size (`photos_page_size` of `GET /api/config`) for a search,
 * status filter and sort done by the server;
 * `fetchNextPage()` follows `next_cursor` ('Carica altre'). Polls every 3 s (every loaded page) while any
 * loaded photo has an unfinished job; the previous result stays on screen while a new search loads.
 */
export function usePhotoPages({ q = '', status = 'all', sort = 'newest' }: Pick<PhotoListParams, 'q' | 'status' | 'sort'> = {}) {
  const config = useConfig().data;
  return useInfiniteQuery({
    queryKey: [...PHOTOS_KEY, 'list', { q: q.trim(), status, sort }],
    queryFn: ({ pageParam }) => getPhotoPage({ q, status, sort, cursor: pageParam }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (hasActiveJobs(query.state.data?.pages.flatMap((p) => p.items), config) ? PHOTOS_POLL_MS : false),
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

/** The badge label of a job status from the server's `job_status_labels` (SPEC §4); `null` = the photo has no
 * job ('Non processata'); '…' while the config loads. */
export function jobStatusLabel(status: string | null | undefined, config: StatusConfig | undefined): string {
  if (!config) return '…';
  if (status === null || status === undefined) return config.no_job_label;
  return config.job_status_labels[status] ?? 'Sconosciuto';
}

export type StatusFilter = 'all' | 'completed' | 'processing' | 'failed' | 'pending';
type FilterGroup = Exclude<StatusFilter, 'all'>;

/** Badge colour by filter group: delivered green, failed red, being worked on blue, waiting amber. */
const GROUP_TONES: Record<FilterGroup, BadgeTone> = { completed: 'success', failed: 'danger', processing: 'info', pending: 'warning' };

/** The badge colour of a job status (neutral without a job, for an unknown status or while the config loads). */
export function jobStatusTone(status: string | null | undefined, config: StatusConfig | undefined): BadgeTone {
  if (!config || status === null || status === undefined) return 'neutral';
  const group = config.status_filters[status] as FilterGroup | undefined;
  return group ? GROUP_TONES[group] : 'neutral';
}

/** The /photos filter group of a job status (the server's `status_filters`); 'pending' takes every other state. */
export function filterGroup(status: string | null | undefined, config: StatusConfig): FilterGroup {
  return ((status && config.status_filters[status]) as FilterGroup | undefined) ?? 'pending';
}

/** `label(status)` and `tone(status)` of job status badges, from the server's config (see {@link jobStatusLabel}). */
export function useJobStatusText() {
  const config = useConfig().data;
  return useMemo(
    () => ({
      label: (status: string | null | undefined) => jobStatusLabel(status, config),
      tone: (status: string | null | undefined) => jobStatusTone(status, config),
    }),
    [config],
  );
}

/** Dashboard counters (SPEC §4) from the server's `counts`: processed; uploaded and processing count as in queue. */
export function photoStats(counts: PhotoCounts | undefined) {
  return { total: counts?.total ?? 0, processed: counts?.processed ?? 0, queued: counts?.queued ?? 0 };
}
