/** The staff area: /graphics-dashboard (designers, and admins) and /admin-dashboard. */
export { GraphicsDashboardPage } from './routes/graphics-dashboard-page';
export { AdminDashboardPage } from './routes/admin-dashboard-page';
