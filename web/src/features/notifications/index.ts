export { NotificationBell } from './components/notification-bell';
export { unreadBadge } from './api/notifications-api';
export { NOTIFICATIONS_KEY, getNotifications } from './api/notifications-api';
