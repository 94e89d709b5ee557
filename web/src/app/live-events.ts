import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { toast } from '@/components/ui/toast';
import { NOTIFICATIONS_KEY, getNotifications } from '@/features/notifications';
import { api, buildUrl } from '@/lib/api-client';
import { ME_QUERY_KEY } from '@/lib/auth';
import { PHOTOS_KEY } from '@/lib/photos';
import { useSessionStore } from '@/stores/session';
import type { StreamTicket } from '@/types/api';

/** What `GET /api/events` sends (the database trigger's payload). */
interface ChangeEvent {
  table: 'photo_processing_jobs' | 'photos' | 'notifications';
  op: 'insert' | 'update';
  id: string;
}


/** Waits before reconnecting after the 1st, 2nd, 3rd and later failures (SPEC §9 realtime). */
export const RECONNECT_DELAYS_MS = [1000, 2000, 5000, 10000];

/**
 * Live updates (SPEC §7 Realtime): one EventSource on `GET /api/events?ticket=…` while signed in. The
 * access token never goes into the URL (access logs would keep it): each connection first asks
 * `POST /api/events/ticket` (bearer header) for a single-use ticket. Job and photo changes refresh the
 * photos, orders, credits and the staff queues; a new notification refreshes the bell and is shown as
 * a toast (destructive when its type is error). A ticket works once, so after an error the stream is
 * reopened here with a new ticket (1, 2, 5, 10 s back-off) instead of by EventSource itself. When the
 * server ends the stream because the session was revoked (`event: session`), the profile is reloaded:
 * its 401 signs the user out.
 */
export function useLiveEvents() {
  const queryClient = useQueryClient();
  const token = useSessionStore((s) => s.session?.access_token ?? null);

  useEffect(() => {
    if (!token || typeof EventSource === 'undefined') return undefined;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;

    const refreshJobs = () => {
      for (const key of [PHOTOS_KEY, ['orders'], ME_QUERY_KEY, ['designer'], ['admin']]) {
        void queryClient.invalidateQueries({ queryKey: key });
      }
    };
    const onNotification = async (message: MessageEvent<string>) => {
      const change = JSON.parse(message.data) as ChangeEvent;
      await queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_KEY });
      if (change.op !== 'insert') return;
      const latest = await queryClient.fetchQuery({ queryKey: NOTIFICATIONS_KEY, queryFn: getNotifications });
      const note = latest.find((n) => n.id === change.id);
      if (note) toast({ title: note.title, description: note.message, ...(note.type === 'error' ? { variant: 'destructive' as const } : {}) });
    };
    const retryLater = () => {
      if (stopped) return;
      const delay = RECONNECT_DELAYS_MS[Math.min(failures, RECONNECT_DELAYS_MS.length - 1)];
      failures += 1;
      timer = setTimeout(() => void connect(), delay);
    };
    const connect = async () => {
      let ticket: StreamTicket;
      try {
        ticket = await api<StreamTicket>('/api/events/ticket', { method: 'POST' });
      } catch {
        retryLater(); // offline or server down; a revoked session clears the token and stops us
        return;
      }
      if (stopped) return;
      const current = new EventSource(buildUrl('/api/events', { ticket: ticket.ticket }));
      source = current;
      current.addEventListener('open', () => {
        failures = 0;
      });
      current.addEventListener('error', () => {
        current.close(); // its ticket is spent: EventSource's own reconnect would get 401
        if (source === current) source = null;
        retryLater();
      });
      current.addEventListener('session', () => {
        current.close();
        stopped = true;
        void queryClient.invalidateQueries({ queryKey: ME_QUERY_KEY });
      });
      current.addEventListener('job', refreshJobs);
      current.addEventListener('photo', refreshJobs);
      current.addEventListener('notification', (m) => void onNotification(m as MessageEvent<string>));
    };

    void connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      source?.close();
    };
  }, [token, queryClient]);
}
