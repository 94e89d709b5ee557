import { LoadErrorCard } from '@/components/ui/load-error-card';
import { useEffect } from 'react';
import { Card, CardHeader } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/components/ui/toast';
import { errorMessage } from '@/lib/api-client';
import { formatCents } from '@/lib/format';
import { useJobStatusText } from '@/lib/photos';
import { useOverview } from '../api/admin-api';

export const DASHBOARD_LOAD_ERROR = 'Errore nel caricamento dei dati della dashboard';

/** Overview tab: counters from `GET /api/admin/overview`; 'Risultati AI da verificare' opens the jobs
 * tab filtered on those results (`onShowNeedsReview`). */
export function AdminOverviewTab({ onShowNeedsReview }: { onShowNeedsReview?: () => void }) {
  const overview = useOverview();
  const statusText = useJobStatusText();

  useEffect(() => {
    if (overview.isError) toast({ title: DASHBOARD_LOAD_ERROR, description: errorMessage(overview.error), variant: 'destructive' });
  }, [overview.isError]); // eslint-disable-line react-hooks/exhaustive-deps

  if (overview.isPending) return <Spinner label="Caricamento dati..." />;
  if (overview.isError) {
    return (
      <LoadErrorCard title={DASHBOARD_LOAD_ERROR} error={overview.error} onRetry={() => void overview.refetch()} />
    );
  }

  const o = overview.data;
  const cards: { label: string; value: string | number; hint?: string; action?: { label: string; run: () => void } }[] = [
    { label: 'Utenti totali', value: o.users_total },
    { label: 'Senza crediti', value: o.users_without_credits, hint: 'Clienti registrati negli ultimi 30 giorni con 0 crediti (il team non usa crediti)' },
    { label: 'Foto totali', value: o.photos_total },
    { label: 'Lavori in attesa di un grafico', value: o.pending_human_unassigned },
    {
      label: 'Risultati AI da verificare',
      value: o.jobs_needing_review,
      hint: `Segnalati dal ritocco automatico negli ultimi ${o.needs_review_window_days} giorni`,
      action: onShowNeedsReview ? { label: 'Vedi i lavori', run: onShowNeedsReview } : undefined,
    },
    { label: 'Crediti venduti', value: o.credits_sold },
    { label: 'Crediti assegnati manualmente', value: o.credits_granted },
    { label: 'Ricavi', value: formatCents(o.revenue_cents) },
  ];
  const statuses = Object.entries(o.jobs_by_status).filter(([, n]) => n > 0);

  return (
    <div className="stack-lg">
      <ul className="stat-grid overview-grid" aria-label="Indicatori">
        {cards.map((c) => (
          <li key={c.label} className="card stat-card">
            <p className="stat-label">{c.label}</p>
            <p className="stat-value">{c.value}</p>
            {c.hint ? <p className="field-hint">{c.hint}</p> : null}
            {c.action ? (
              <button type="button" className="btn btn-outline btn-sm" aria-label={`${c.action.label}: ${c.label}`} onClick={c.action.run}>
                {c.action.label}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      <Card>
        <CardHeader title="Lavori per stato" />
        {statuses.length === 0 ? (
          <p className="muted">Nessun lavoro.</p>
        ) : (
          <ul className="simple-list" aria-label="Lavori per stato">
            {statuses.map(([status, n]) => (
              <li key={status}>
                <span>{statusText.label(status)}</span>
                <strong>{n}</strong>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
