export { NotificationBell } from './components/notification-bell';
export { NOTIFICATIONS_KEY, getNotifications } from './api/notifications-api';
