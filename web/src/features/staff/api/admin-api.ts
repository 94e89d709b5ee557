import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { AddCreditsResult, AdminJobPage, AdminOverview, AssignMissingResult, DesignerJob, DesignerLoad, JobTimeline, SortOrder, UserPage } from './types';

export const ADMIN_KEY = ['admin'] as const;
export const OVERVIEW_KEY = [...ADMIN_KEY, 'overview'] as const;
export const DESIGNERS_KEY = [...ADMIN_KEY, 'designers'] as const;
export const POOL_KEY = [...ADMIN_KEY, 'jobs', 'pending_human'] as const;
export const USERS_KEY = [...ADMIN_KEY, 'users'] as const;
/** The team tab follows the pool and the designers' load every 10 s. */
export const TEAM_POLL_MS = 10_000;

export const getOverview = () => api<AdminOverview>('/api/admin/overview');
export const useOverview = () => useQuery({ queryKey: OVERVIEW_KEY, queryFn: getOverview });

export const getDesigners = () => api<DesignerLoad[]>('/api/admin/designers');
export const useDesigners = () => useQuery({ queryKey: DESIGNERS_KEY, queryFn: getDesigners, refetchInterval: TEAM_POLL_MS });

export const getPendingPool = () => api<DesignerJob[]>('/api/admin/jobs', { query: { status: 'pending_human' } });
export const usePendingPool = () => useQuery({ queryKey: POOL_KEY, queryFn: getPendingPool, refetchInterval: TEAM_POLL_MS });

export const assignJob = (jobId: string, designerId: string) =>
  api<DesignerJob>(`/api/admin/jobs/${jobId}/assign`, { method: 'POST', json: { designer_id: designerId } });


export const addCredits = (userId: string, amount: number) =>
  api<AddCreditsResult>(`/api/admin/users/${userId}/credits`, { method: 'POST', json: { amount } });

export const assignMissingFreeCredits = () => api<AssignMissingResult>('/api/admin/users/assign-missing-free-credits', { method: 'POST' });

/** Filters, sort and page of the admin's job search (`GET /api/admin/jobs?page=…`). */
export interface JobSearch {
  q: string;
  status: string;
  /** Only the AI results flagged for review (the overview's 'Risultati AI da verificare'). */
  needsReview?: boolean;
  dateFrom: string;
  dateTo: string;
  sort: string;
  order: SortOrder;
  page: number;
  size: number;
}

export const searchJobs = (s: JobSearch) =>
  api<AdminJobPage>('/api/admin/jobs', {
    query: {
      q: s.q.trim() || undefined,
      status: s.status || undefined,
      needs_review: s.needsReview ? 'true' : undefined,
      date_from: s.dateFrom || undefined,
      date_to: s.dateTo || undefined,
      sort: s.sort,
      order: s.order,
      page: String(s.page),
      size: String(s.size),
    },
  });
/** One page of jobs; keeps the previous page on screen while the next one loads. */
export const useJobSearch = (s: JobSearch) =>
  useQuery({ queryKey: [...ADMIN_KEY, 'jobs', 'search', s], queryFn: () => searchJobs(s), placeholderData: keepPreviousData });

export const getJobTimeline = (jobId: string) => api<JobTimeline>(`/api/admin/jobs/${jobId}/timeline`);
/** The job's Italian timeline; refreshed every 5 s while the workflow runs. */
export const useJobTimeline = (jobId: string) =>
  useQuery({
    queryKey: [...ADMIN_KEY, 'jobs', jobId, 'timeline'],
    queryFn: () => getJobTimeline(jobId),
    refetchInterval: (query) => (query.state.data?.workflow_status === 'RUNNING' ? 5_000 : false),
  });

/** Sort and page of the users table (`GET /api/admin/users?page=…`). */
export interface UserSearch {
  q: string;
  sort: string;
  order: SortOrder;
  page: number;
  size: number;
}

export const searchUsersPage = (s: UserSearch) =>
  api<UserPage>('/api/admin/users', {
    query: { q: s.q.trim() || undefined, sort: s.sort, order: s.order, page: String(s.page), size: String(s.size) },
  });
/** One sorted page of users matching `q`; keeps the previous rows while the next page loads. */
export const useUsersPage = (s: UserSearch) =>
  useQuery({ queryKey: [...USERS_KEY, 'page', s], queryFn: () => searchUsersPage(s), placeholderData: keepPreviousData });
