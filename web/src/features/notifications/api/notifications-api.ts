import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { NOTIFICATIONS_POLL_MS } from '@/config/constants';
import { api } from '@/lib/api-client';
import type { AppNotification } from '@/types/api';

export const NOTIFICATIONS_KEY = ['notifications'] as const;

export const getNotifications = () => api<AppNotification[]>('/api/notifications');
export const markNotificationRead = (id: string) => api<unknown>(`/api/notifications/${id}/read`, { method: 'POST' });
export const markAllNotificationsRead = () => api<unknown>('/api/notifications/read-all', { method: 'POST' });

export function useNotifications() {
  return useQuery({ queryKey: NOTIFICATIONS_KEY, queryFn: getNotifications, refetchInterval: NOTIFICATIONS_POLL_MS });
}

/** Marks one (id) or all (null) notifications read; failures are only logged (SPEC §8). */
export function useMarkRead() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string | null) => (id ? markNotificationRead(id) : markAllNotificationsRead()),
    onMutate: (id) => {
      qc.setQueryData<AppNotification[]>(NOTIFICATIONS_KEY, (old) => old?.map((n) => (id === null || n.id === id ? { ...n, read: true } : n)));
    },
    onError: (error) => console.error('notifications', error),
    onSettled: () => qc.invalidateQueries({ queryKey: NOTIFICATIONS_KEY }),
  });
}

/** Unread badge text: the count, or '9+' above 9 (SPEC §9). Empty when none. */
export function unreadBadge(count: number): string {
  if (count <= 0) return '';
  return count > 9 ? '9+' : String(count);
}
