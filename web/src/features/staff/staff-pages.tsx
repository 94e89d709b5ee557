import { Card } from '@/components/ui/card';

/** The staff area: /graphics-dashboard (designers, and admins) and /admin-dashboard. */
export { GraphicsDashboardPage } from './routes/graphics-dashboard-page';

/** /admin-dashboard: overview, users and graphics team are not built in the web app yet. */
export function AdminDashboardPage() {
  return (
    <div className="page">
      <header className="page-header">
        <h1>Admin Dashboard</h1>
      </header>
      <Card className="empty-state">
        <p>Le funzioni di amministrazione non sono ancora disponibili nell’app web.</p>
      </Card>
    </div>
  );
}
