import { Badge } from '@/components/ui/badge';
import { formatBytes, formatDateTime, relativeTime } from '@/lib/format';
import { useAuthImage } from '@/lib/use-auth-image';
import { useJobStatusText } from '@/lib/photos';
import { jobAction } from '../lib/jobs';
import type { DesignerJob } from '../api/types';
import { Deadline, PriorityBadge } from './priority-badge';

interface Props {
  job: DesignerJob;
  meId: string | undefined;
  busy: boolean;
  onAssign: () => void;
  onStart: () => void;
  onComplete: () => void;
  onReject: () => void;
  onDownloadOriginal: () => void;
}

/** A small preview of the job's original (`GET /api/designer/jobs/{id}/thumbnail`, bearer auth). */
function JobThumbnail({ job }: { job: DesignerJob }) {
  const url = useAuthImage(`/api/designer/jobs/${job.id}/thumbnail?size=320`);
  if (!url) return <div className="job-thumb job-thumb-empty" aria-hidden="true" />;
  return <img className="job-thumb" src={url} alt={`Anteprima di ${job.original_filename}`} loading="lazy" />;
}

/** One job of the designer's queue, compact (thumbnail beside the facts, the whole name, wrapped),
 * with the actions its state allows. */
export function DesignerJobCard({ job, meId, busy, onAssign, onStart, onComplete, onReject, onDownloadOriginal }: Props) {
  const action = jobAction(job, meId);
  const mine = meId !== undefined && job.assigned_to === meId;
  return (
    <li className="card job-card job-card-compact" aria-label={job.original_filename}>
      <JobThumbnail job={job} />
      <div className="job-card-body">
        <JobCardHead job={job} withPriority />
        <p className="muted job-sub">
          Ricevuto <time dateTime={job.created_at}>{relativeTime(job.created_at)}</time> · {formatBytes(job.file_size)}
          {job.width && job.height ? ` · ${job.width}×${job.height}px` : ''}
        </p>
        <Deadline job={job} />
        {job.client_notes ? (
          <p className="job-notes">
            <strong>Note del cliente:</strong> {job.client_notes}
          </p>
        ) : null}
        {job.assigned_to && !mine ? <p className="muted job-sub">Assegnato a un altro grafico</p> : null}
        <div className="job-actions">
          {action === 'assign' ? (
            <button type="button" className="btn btn-primary btn-sm" disabled={busy} onClick={onAssign}>
              Assegna a me
            </button>
          ) : null}
          {action === 'start' ? (
            <button type="button" className="btn btn-primary btn-sm" disabled={busy} onClick={onStart}>
              Inizia
            </button>
          ) : null}
          {action === 'work' ? (
            <>
              <button type="button" className="btn btn-primary btn-sm" disabled={busy} onClick={onComplete}>
                Completa
              </button>
              <button type="button" className="btn btn-danger btn-sm" disabled={busy} onClick={onReject}>
                Rifiuta
              </button>
            </>
          ) : null}
          {mine ? (
            <button type="button" className="btn btn-outline btn-sm" disabled={busy} onClick={onDownloadOriginal} aria-label={`Scarica originale ${job.original_filename}`}>
              Scarica originale
            </button>
          ) : null}
        </div>
      </div>
    </li>
  );
}

/** A job card's title (the whole original file name) and its badges: priority (queue cards) and status. */
function JobCardHead({ job, withPriority = false }: { job: DesignerJob; withPriority?: boolean }) {
  const statusText = useJobStatusText();
  return (
    <div className="job-card-head">
      <h3 className="job-title" title={job.original_filename}>
        {job.original_filename}
      </h3>
      <div className="job-badges">
        {withPriority ? <PriorityBadge priority={job.priority} /> : null}
        <Badge tone={statusText.tone(job.status)}>{statusText.label(job.status)}</Badge>
      </div>
    </div>
  );
}

/** One delivered job of the 'Completati' history: the name, when it was received and completed, the
 * note left for the client. */
export function CompletedJobRow({ job }: { job: DesignerJob }) {
  return (
    <li className="card job-card job-card-compact" aria-label={job.original_filename}>
      <JobThumbnail job={job} />
      <div className="job-card-body">
        <JobCardHead job={job} />
        <p className="muted job-sub">
          Completato il <time dateTime={job.completed_at ?? undefined}>{formatDateTime(job.completed_at)}</time> · ricevuto{' '}
          <time dateTime={job.created_at}>{relativeTime(job.created_at)}</time>
        </p>
        {job.graphic_notes ? (
          <p className="job-notes">
            <strong>Note per il cliente:</strong> {job.graphic_notes}
          </p>
        ) : null}
      </div>
    </li>
  );
}
