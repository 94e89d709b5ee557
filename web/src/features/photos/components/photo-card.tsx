import { Image as ImageIcon } from 'lucide-react';
import { Badge } from '@/components/ui/badge';
import { Progress } from '@/components/ui/progress';
import { formatBytes, relativeTime } from '@/lib/format';
import { useAuthImage } from '@/lib/use-auth-image';
import { confidencePercent, latestJob, needsReview, resultDetails, shownJob, useJobStatusText } from '@/lib/photos';
import type { Photo } from '@/types/api';
import type { DownloadFormat } from '../api/photos-api';

const MAX_COLORS = 4;

interface Props {
  photo: Photo;
  selected: boolean;
  onSelect: (selected: boolean) => void;
  onDownload: (format: DownloadFormat) => void;
  onReprocess: () => void;
  onRework: () => void;
  /** One click, no question: the free designer rework of a result flagged 'Da verificare'. */
  onReviewRework: () => void;
  onDelete: () => void;
  busy: boolean;
}

/** A delivered result exists (it stays downloadable while a free rework is under way). */
export function isDownloadable(photo: Photo): boolean {
  return photo.processed_path !== null && photo.status === 'processed' && photo.files_deleted_at == null;
}

/** Why a flagged result goes to a designer, in the seller's words. */
export const REVIEW_REASON = 'Il ritocco automatico non è sicuro di aver isolato il prodotto giusto: un grafico può rifinirlo gratis.';
/** The same doubt once the free rework is no longer available (asked already, or the window is over). */
export const REVIEW_REASON_NO_REWORK = 'Il ritocco automatico non è sicuro di aver isolato il prodotto giusto: controlla il risultato prima di usarlo.';

/** A designer's reason inside a sentence: «…», without its final full stop. */
export function quoted(reason: string | null | undefined): string {
  const text = (reason ?? '').trim().replace(/[.!…]+$/u, '');
  return text ? `«${text}»` : 'non era possibile rifarla';
}

/** Original and result side by side, for a result flagged 'Da verificare'. */
function BeforeAfter({ photoId, title, after }: { photoId: string; title: string; after: string | null }) {
  const before = useAuthImage(`/api/photos/${photoId}/thumbnail?variant=original`);
  return (
    <div className="photo-compare" role="group" aria-label={`Prima e dopo: ${title}`}>
      <figure>
        <div className="photo-thumb">{before ? <img src={before} alt={`Prima: foto originale di ${title}`} /> : <ImageIcon aria-hidden="true" size={32} />}</div>
        <figcaption>Prima</figcaption>
      </figure>
      <figure>
        <div className="photo-thumb">{after ? <img src={after} alt={`Dopo: risultato del ritocco di ${title}`} /> : <ImageIcon aria-hidden="true" size={32} />}</div>
        <figcaption>Dopo</figcaption>
      </figure>
    </div>
  );
}

export function PhotoCard({ photo, selected, onSelect, onDownload, onReprocess, onRework, onReviewRework, onDelete, busy }: Props) {
  const job = latestJob(photo);
  // the badge describes the photo the seller has: after a rejected free rework, the earlier delivery
  const shown = shownJob(photo);
  const statusText = useJobStatusText();
  const details = resultDetails(photo);
  const title = details?.seo_filename || photo.original_filename;
  const colors = details?.colors ?? [];
  const canDownload = isDownloadable(photo);
  // the version in the URL keeps the browser's cache from showing the original after delivery
  const version = encodeURIComponent(`${photo.status}:${photo.processed_path ?? ''}`);
  const thumb = useAuthImage(photo.files_deleted_at ? null : `/api/photos/${photo.id}/thumbnail?v=${version}`);
  const inProgress = job?.status === 'processing' || job?.status === 'in_progress_human';
  // the server decides both, by the rules its rework and reprocess endpoints enforce
  const canReprocess = photo.can_reprocess;
  const flagged = needsReview(photo);
  const canRework = photo.can_rework;
  const confidence = flagged ? confidencePercent(job) : null;
  // a free rework the designers rejected: the earlier result stays (DESIGN decisions), shown as delivered
  const reworkRejected = job?.status === 'rejected_human' && shown?.id !== job.id;

  return (
    <article className="card photo-card" aria-label={title}>
      <div className="photo-card-top">
        {canDownload ? (
          <input type="checkbox" className="photo-check" aria-label={`Seleziona ${title}`} checked={selected} onChange={(e) => onSelect(e.target.checked)} />
        ) : null}
        {flagged ? null : (
          <div className="photo-thumb">
            {thumb ? <img src={thumb} alt={`Anteprima di ${title}`} /> : <ImageIcon aria-hidden="true" size={40} />}
          </div>
        )}
        <div className="photo-badges">
          <Badge tone={statusText.tone(shown?.status)}>{statusText.label(shown?.status ?? null)}</Badge>
          {flagged ? <Badge tone="warning">Da verificare</Badge> : null}
        </div>
      </div>
      {flagged ? <BeforeAfter photoId={photo.id} title={title} after={thumb} /> : null}
      {flagged ? (
        <div className="review-note" role="note">
          <p>{canRework ? REVIEW_REASON : REVIEW_REASON_NO_REWORK}</p>
          {confidence !== null ? <p className="muted">Affidabilità del ritocco automatico: {confidence}%</p> : null}
          {canRework ? (
            <button type="button" className="btn btn-primary btn-sm" onClick={onReviewRework} disabled={busy}>
              Fai rifinire a un grafico
            </button>
          ) : null}
        </div>
      ) : null}
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
      {shown?.status === 'completed_human' && shown.graphic_notes ? (
        <p className="photo-note" role="note">
          <strong>Nota del grafico:</strong> {shown.graphic_notes}
        </p>
      ) : null}
      {details?.resolution_notice ? (
        <p className="notice warning" role="note">
          {details.resolution_notice}. La foto resta alla sua risoluzione, senza ingrandimenti.
        </p>
      ) : null}
      {inProgress ? <Progress value={job?.progress_percentage ?? 0} label={`Avanzamento ${title}`} /> : null}
      {reworkRejected ? (
        <p className="photo-note" role="note">
          <strong>Revisione gratuita non eseguita:</strong> il grafico ha spiegato che {quoted(job.error_message)}. Il risultato consegnato resta tuo e
          puoi scaricarlo.
        </p>
      ) : job?.error_message ? (
        <p className="form-error photo-error" role="note">
          {job.status === 'rejected_human' ? `Il team grafico non ha potuto lavorare questa foto. Motivo: ${quoted(job.error_message)}.` : job.error_message}
        </p>
      ) : null}
      {job?.status === 'rejected_human' && !reworkRejected ? <p className="muted photo-hint">I crediti riservati ti sono stati restituiti.</p> : null}
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
        {canRework && !flagged ? (
          <button type="button" className="btn btn-outline btn-sm" onClick={onRework} disabled={busy} title="Una volta, entro 7 giorni: il nostro team grafico rielabora la foto senza costi">
            Revisione gratuita
          </button>
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
