import { Card } from '@/components/ui/card';

/** /graphics-dashboard: the designers' job list is not built in the web app yet. */
export function GraphicsDashboardPage() {
  return (
    <div className="page">
      <header className="page-header">
        <h1>Dashboard Lavori</h1>
      </header>
      <Card className="empty-state">
        <p>La gestione dei lavori del team grafici non è ancora disponibile nell’app web.</p>
      </Card>
    </div>
  );
}

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
