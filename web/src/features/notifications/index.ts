export { NotificationBell } from './components/notification-bell';
export { unreadBadge } from './api/notifications-api';
