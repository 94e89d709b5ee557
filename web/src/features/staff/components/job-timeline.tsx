import { Badge } from '@/components/ui/badge';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useJobTimeline } from '../api/admin-api';
import { OUTCOME_LABELS, OUTCOME_TONES, formatDuration, timelineSummaryLabel } from '../lib/timeline';

/**
 * The Italian timeline of one job's workflow: a summary (workflow status, retried
 * attempts, failures, link to the run in Temporal's web interface) and each step with start, duration and outcome.
 */
export function JobTimelineView({ jobId, name }: { jobId: string; name: string }) {
  const timeline = useJobTimeline(jobId);
  if (timeline.isPending) return <Spinner label="Caricamento cronologia..." />;
  if (timeline.isError) {
    return (
      <p className="form-error" role="alert">
        {errorMessage(timeline.error, 'Cronologia del lavoro non disponibile')}
      </p>
    );
  }
  const t = timeline.data;
  return (
    <section className="timeline" aria-label={`Cronologia ${name}`}>
      <div className="timeline-summary">
        <Badge tone={t.workflow_status === 'RUNNING' && !t.files_kept_until ? 'info' : t.failures > 0 ? 'danger' : 'success'}>{timelineSummaryLabel(t)}</Badge>
        {t.retries > 0 ? <Badge tone="warning">{t.retries === 1 ? '1 tentativo ripetuto' : `${t.retries} tentativi ripetuti`}</Badge> : null}
        {t.failures > 0 ? <Badge tone="danger">{t.failures === 1 ? '1 passo fallito' : `${t.failures} passi falliti`}</Badge> : <Badge tone="success">Nessun errore</Badge>}
        <a className="btn btn-outline btn-sm" href={t.temporal_url} target="_blank" rel="noopener noreferrer">
          Apri in Temporal
        </a>
      </div>
      <ol className="timeline-list">
        {t.steps.map((s, i) => (
          <li key={`${s.kind}-${s.started_at}-${i}`} className={`timeline-step timeline-${s.outcome}`}>
            <span className="timeline-dot" aria-hidden="true" />
            <div className="timeline-body">
              <div className="timeline-head">
                <strong>{s.label}</strong>
                <Badge tone={OUTCOME_TONES[s.outcome]}>{OUTCOME_LABELS[s.outcome]}</Badge>
              </div>
              {s.detail ? <p className="timeline-detail">{s.detail}</p> : null}
              <p className="muted timeline-time">
                <time dateTime={s.started_at}>{formatDateTime(s.started_at)}</time>
                {s.duration_ms !== null ? ` · durata ${formatDuration(s.duration_ms)}` : ''}
              </p>
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}
