import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { AddCreditsResult, AdminOverview, AdminUserRow, AssignMissingResult, DesignerJob, DesignerLoad, HistoryEvent } from '../types';

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

export const getJobHistory = (jobId: string) => api<HistoryEvent[]>(`/api/admin/jobs/${jobId}/history`);
export const useJobHistory = (jobId: string) =>
  useQuery({ queryKey: [...ADMIN_KEY, 'jobs', jobId, 'history'], queryFn: () => getJobHistory(jobId) });

export const searchUsers = (q: string) => api<AdminUserRow[]>('/api/admin/users', { query: { q: q.trim() || undefined } });
/** Users matching `q` (e-mail, first or last name); keeps the previous rows while a new search runs. */
export const useUsers = (q: string) =>
  useQuery({ queryKey: [...USERS_KEY, q.trim()], queryFn: () => searchUsers(q), placeholderData: keepPreviousData });

export const addCredits = (userId: string, amount: number) =>
  api<AddCreditsResult>(`/api/admin/users/${userId}/credits`, { method: 'POST', json: { amount } });

export const assignMissingFreeCredits = () => api<AssignMissingResult>('/api/admin/users/assign-missing-free-credits', { method: 'POST' });
