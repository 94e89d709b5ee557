import { useQuery } from '@tanstack/react-query';
import { api, apiFetch } from '@/lib/api-client';
import type { DesignerJob } from './types';

export const DESIGNER_JOBS_KEY = ['designer', 'jobs'] as const;
/** The graphics dashboard polls its queue every 10 s. */
export const DESIGNER_POLL_MS = 10_000;

export const getDesignerJobs = () => api<DesignerJob[]>('/api/designer/jobs');

/** The pending pool plus the caller's assigned and in-progress jobs; polls every 10 s. */
export function useDesignerJobs() {
  return useQuery({ queryKey: DESIGNER_JOBS_KEY, queryFn: getDesignerJobs, refetchInterval: DESIGNER_POLL_MS });
}

export const DESIGNER_HISTORY_KEY = ['designer', 'history'] as const;

/** 'Completati': the jobs the designer delivered, the most recent first (`GET /api/designer/history`). */
export function useDesignerHistory(enabled: boolean) {
  return useQuery({ queryKey: DESIGNER_HISTORY_KEY, queryFn: () => api<DesignerJob[]>('/api/designer/history'), enabled });
}

export const assignToMe = (id: string) => api<DesignerJob>(`/api/designer/jobs/${id}/assign-to-me`, { method: 'POST' });
export const startJob = (id: string) => api<DesignerJob>(`/api/designer/jobs/${id}/start`, { method: 'POST' });

/** Delivers the result: multipart `file` and optional `notes`. */
export function completeJob(id: string, file: File, notes: string) {
  const body = new FormData();
  body.append('file', file);
  if (notes.trim()) body.append('notes', notes.trim());
  return api<DesignerJob>(`/api/designer/jobs/${id}/complete`, { method: 'POST', body });
}

export const rejectJob = (id: string, notes: string) =>
  api<DesignerJob>(`/api/designer/jobs/${id}/reject`, { method: 'POST', json: { notes: notes.trim() || null } });

/** The original image bytes (bearer auth), for preview or download. */
export async function fetchOriginal(id: string, signal?: AbortSignal): Promise<Blob> {
  const response = await apiFetch(`/api/designer/jobs/${id}/original`, { signal });
  return response.blob();
}
