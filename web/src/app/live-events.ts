import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { toast } from '@/components/ui/toast';
import { NOTIFICATIONS_KEY, getNotifications } from '@/features/notifications';
import { buildUrl } from '@/lib/api-client';
import { ME_QUERY_KEY } from '@/lib/auth';
import { PHOTOS_KEY } from '@/lib/photos';
import { useSessionStore } from '@/stores/session';

/** What `GET /api/events` sends (the database trigger's payload). */
interface ChangeEvent {
  table: 'photo_processing_jobs' | 'photos' | 'notifications';
  op: 'insert' | 'update';
  id: string;
}

/**
 * Live updates (SPEC §7 Realtime): one EventSource on `GET /api/events?access_token=…` while signed in.
 * Job and photo changes refresh the photos, orders, credits and the staff queues; a new notification
 * refreshes the bell and is shown as a toast (destructive when its type is error). EventSource
 * reconnects by itself; a new access token opens a new stream.
 */
export function useLiveEvents() {
  const queryClient = useQueryClient();
  const token = useSessionStore((s) => s.session?.access_token ?? null);

  useEffect(() => {
    if (!token || typeof EventSource === 'undefined') return undefined;
    const source = new EventSource(buildUrl('/api/events', { access_token: token }));
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
    source.addEventListener('job', refreshJobs);
    source.addEventListener('photo', refreshJobs);
    source.addEventListener('notification', (m) => void onNotification(m as MessageEvent<string>));
    return () => source.close();
  }, [token, queryClient]);
}
