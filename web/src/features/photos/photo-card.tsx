import { Badge } from '@/components/ui/badge';
import { Progress } from '@/components/ui/progress';
import { formatBytes, relativeTime } from '@/lib/format';
import { isRetryableError, jobStatusLabel, jobStatusTone, latestJob } from '@/lib/photos';
import type { Photo } from '@/types/api';
import type { DownloadFormat } from './photos-api';

const MAX_COLORS = 4;

interface Props {
  photo: Photo;
  selected: boolean;
  onSelect: (selected: boolean) => void;
  onDownload: (format: DownloadFormat) => void;
  onReprocess: () => void;
  onDelete: () => void;
  busy: boolean;
}

export function isDownloadable(photo: Photo): boolean {
  const status = latestJob(photo)?.status;
  return photo.processed_path !== null && photo.status === 'processed' && (status === 'completed' || status === 'completed_human');
}

export function PhotoCard({ photo, selected, onSelect, onDownload, onReprocess, onDelete, busy }: Props) {
  const job = latestJob(photo);
  const details = job?.processing_details ?? null;
  const title = details?.seo_filename || photo.original_filename;
  const colors = details?.colors ?? [];
  const canDownload = isDownloadable(photo);
  const inProgress = job?.status === 'processing' || job?.status === 'in_progress_human';
  const canReprocess = (job?.status === 'failed' || job?.status === 'rejected_human') && isRetryableError(job.error_message);

  return (
    <article className="card photo-card" aria-label={title}>
      <div className="photo-card-top">
        {canDownload ? (
          <input type="checkbox" className="photo-check" aria-label={`Seleziona ${title}`} checked={selected} onChange={(e) => onSelect(e.target.checked)} />
        ) : null}
        <div className="photo-thumb" aria-hidden="true">
          🖼️
        </div>
        <Badge tone={jobStatusTone(job?.status)}>{jobStatusLabel(job?.status ?? null)}</Badge>
      </div>
      <h3 className="photo-title" title={title}>
        {title}
      </h3>
      {details?.seo_filename && details.seo_filename !== photo.original_filename ? (
        <p className="muted photo-sub" title={photo.original_filename}>
          Originale: {photo.original_filename}
        </p>
      ) : null}
      <p className="muted photo-sub">
        <time dateTime={photo.created_at}>{relativeTime(photo.created_at)}</time> · {formatBytes(photo.file_size)}
      </p>
      {details?.brand || details?.category ? (
        <dl className="photo-meta">
          {details.brand ? (
            <>
              <dt>Marca</dt>
              <dd>{details.brand}</dd>
            </>
          ) : null}
          {details.category ? (
            <>
              <dt>Categoria</dt>
              <dd>{details.category}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
      {colors.length > 0 ? (
        <ul className="color-list" aria-label="Colori">
          {colors.slice(0, MAX_COLORS).map((c) => (
            <li key={`${c.hex}-${c.name}`} title={`${c.name} ${c.hex}`}>
              <span className="swatch" style={{ background: c.hex }} aria-hidden="true" />
              <span className="sr-only">{c.name}</span>
            </li>
          ))}
          {colors.length > MAX_COLORS ? <li className="muted">+{colors.length - MAX_COLORS}</li> : null}
        </ul>
      ) : null}
      {inProgress ? <Progress value={job?.progress_percentage ?? 0} label={`Avanzamento ${title}`} /> : null}
      {job?.error_message ? (
        <p className="form-error photo-error" role="note">
          {job.error_message}
        </p>
      ) : null}
      <div className="photo-actions">
        {canDownload ? (
          <>
            <button type="button" className="btn btn-primary btn-sm" onClick={() => onDownload('jpeg')} disabled={busy}>
              Scarica
            </button>
            <button type="button" className="btn btn-outline btn-sm" onClick={() => onDownload('webp')} disabled={busy} aria-label={`Scarica ${title} in WebP`}>
              WebP
            </button>
          </>
        ) : null}
        {canReprocess ? (
          <button type="button" className="btn btn-outline btn-sm" onClick={onReprocess} disabled={busy}>
            Rielabora
          </button>
        ) : null}
        <button type="button" className="btn btn-danger btn-sm" onClick={onDelete} disabled={busy} aria-label={`Elimina ${title}`}>
          Elimina
        </button>
      </div>
    </article>
  );
}
