import { Bell, CircleCheck, Info, OctagonX, Pin, TriangleAlert, type LucideIcon } from 'lucide-react';
import { useCallback, useRef, useState } from 'react';
import { useDismiss } from '@/lib/use-dismiss';
import { notificationTime } from '@/lib/format';
import type { AppNotification } from '@/types/api';
import { unreadBadge, useMarkRead, useNotifications } from '../api/notifications-api';

const TYPE_ICON: Record<string, LucideIcon> = { success: CircleCheck, warning: TriangleAlert, error: OctagonX, assignment: Pin };

function NotificationItem({ n, onRead }: { n: AppNotification; onRead: (id: string) => void }) {
  const Icon = TYPE_ICON[n.type] ?? Info;
  return (
    <li>
      <button
        type="button"
        className={`notification ${n.read ? '' : 'unread'}`}
        onClick={() => {
          if (!n.read) onRead(n.id);
        }}
        aria-label={`${n.read ? '' : 'Non letta: '}${n.title}`}
      >
        <Icon aria-hidden="true" size={18} className={`notification-icon notification-icon-${n.type}`} />
        <span className="notification-text">
          <span className="notification-title">{n.title}</span>
          <span className="notification-message">{n.message}</span>
          <span className="notification-time">{notificationTime(n.created_at)}</span>
        </span>
      </button>
    </li>
  );
}

/** Bell with the unread count and a panel listing the latest notifications. */
export function NotificationBell() {
  const [open, setOpen] = useState(false);
  const { data, isPending } = useNotifications();
  const markRead = useMarkRead();
  const ref = useRef<HTMLDivElement>(null);
  const closeMenu = useCallback(() => setOpen(false), []);
  const notifications = data ?? [];
  const unread = notifications.filter((n) => !n.read).length;
  const badge = unreadBadge(unread);

  useDismiss(ref, open, closeMenu);

  return (
    <div className="popover-anchor" ref={ref}>
      <button
        type="button"
        className="btn btn-ghost icon-button"
        aria-label={unread > 0 ? `Notifiche (${unread} non lette)` : 'Notifiche'}
        aria-expanded={open}
        aria-controls="notification-panel"
        onClick={() => setOpen((o) => !o)}
      >
        <Bell aria-hidden="true" size={20} />
        {badge ? (
          <span className="bell-badge" data-testid="notification-badge" aria-hidden="true">
            {badge}
          </span>
        ) : null}
      </button>
      {open ? (
        <div id="notification-panel" className="popover notification-panel" role="dialog" aria-label="Notifiche">
          <div className="popover-header">
            <strong>Notifiche</strong>
            {unread > 0 ? (
              <button type="button" className="btn btn-link btn-sm" onClick={() => markRead.mutate(null)}>
                Segna tutto
              </button>
            ) : null}
          </div>
          {isPending ? (
            <p className="muted popover-empty">Caricamento...</p>
          ) : notifications.length === 0 ? (
            <p className="muted popover-empty">Nessuna notifica</p>
          ) : (
            <ul className="notification-list">
              {notifications.map((n) => (
                <NotificationItem key={n.id} n={n} onRead={(id) => markRead.mutate(id)} />
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </div>
  );
}
