import { CircleCheck, CreditCard, Hourglass, Images, type LucideIcon } from 'lucide-react';
import { Link } from 'react-router-dom';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { useMe } from '@/lib/auth';
import { photoStats, useRecentPhotos } from '@/lib/photos';
import { greeting } from '../lib/greeting';
import { PaymentReturn } from '../components/payment-return';

function StatCard({ label, value, icon: Icon }: { label: string; value: number | string; icon: LucideIcon }) {
  return (
    <Card className="stat-card" role="group" aria-label={label}>
      <span className="stat-icon" aria-hidden="true">
        <Icon size={20} />
      </span>
      <p className="stat-label">{label}</p>
      <p className="stat-value">{value}</p>
    </Card>
  );
}

export function DashboardPage() {
  const { data: profile } = useMe();
  const photos = useRecentPhotos(1); // only the counters are shown
  const stats = photoStats(photos.data?.counts);
  const credits = profile?.credits_remaining ?? 0;
  const firstName = profile?.first_name?.trim();
  const dash = (n: number) => (photos.isPending ? '…' : n);

  return (
    <div className="page">
      <PaymentReturn />
      <header className="page-header">
        <h1>
          {greeting()}
          {firstName ? `, ${firstName}` : ''}!
        </h1>
        <p className="muted">Cosa vuoi processare oggi?</p>
        <p className="credits-line">
          Crediti disponibili: <strong>{credits}</strong>
        </p>
      </header>

      <section aria-label="Statistiche" className="stat-grid">
        <StatCard label="Crediti" value={credits} icon={CreditCard} />
        <StatCard label="Foto Totali" value={dash(stats.total)} icon={Images} />
        <StatCard label="Processate" value={dash(stats.processed)} icon={CircleCheck} />
        <StatCard label="In Coda" value={dash(stats.queued)} icon={Hourglass} />
      </section>
      {photos.isError ? (
        <p role="alert" className="form-error">
          Impossibile caricare le foto processate
        </p>
      ) : null}

      <div className="grid-2 dashboard-actions">
        <Card>
          <h2 className="card-title">Elaborazione AI</h2>
          <p className="muted">Sfondo bianco, luce e colori ottimizzati, ombra naturale e nome file SEO. 1 credito a foto.</p>
          <Link to="/upload" className="btn btn-primary">
            Carica foto
          </Link>
        </Card>
        <Card>
          <h2 className="card-title">Acquista crediti</h2>
          <p className="muted">Pacchetti da 50, 100 o 300 foto. Crediti validi 365 giorni, nessun abbonamento.</p>
          <Link to="/credits" className="btn btn-outline">
            Vai ai crediti
          </Link>
        </Card>
      </div>

      <nav aria-label="Collegamenti rapidi" className="quick-links">
        <h2 className="card-title">Collegamenti rapidi</h2>
        <ul>
          <li>
            <Link to="/upload">Carica foto</Link>
          </li>
          <li>
            <Link to="/photos">Foto processate</Link>
          </li>
          <li>
            <Link to="/orders">Ordini</Link>
          </li>
          <li>
            <Link to="/profile">Profilo</Link>
          </li>
        </ul>
      </nav>
      {photos.isFetching && !photos.isPending ? <Spinner label="Aggiornamento..." /> : null}
    </div>
  );
}
