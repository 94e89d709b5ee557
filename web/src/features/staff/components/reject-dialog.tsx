import { useState, type FormEvent } from 'react';
import { Dialog } from '@/components/ui/dialog';
import { toast } from '@/components/ui/toast';
import { errorMessage, errorTitle } from '@/lib/api-client';
import { rejectJob } from '../api/designer-api';
import type { DesignerJob } from '../api/types';

/** The server refuses a shorter reason (`REJECT_REASON_MIN_CHARS` in api/routes/designer.py). */
export const REJECT_REASON_MIN_CHARS = 5;
export const REJECT_REASON_REQUIRED = `Scrivi il motivo del rifiuto (almeno ${REJECT_REASON_MIN_CHARS} caratteri): il cliente lo riceve nella notifica.`;
/** The server's `REJECT_REASON_WORDS` (api/routes/designer.py). */
export const REJECT_REASON_WORDS = 'Scrivi il motivo del rifiuto a parole (almeno due parole, non solo numeri o simboli): il cliente lo legge per capire cosa fare.';

/**
 * Whether a reason is words a person can read, the server's rule (`says_something` in
 * api/text_rules.py): at least two words of two or more letters, and letters at least half of its
 * non-space characters. "__main__" and "999999" are not.
 */
export function saysSomething(text: string): boolean {
  const words = text.match(/\p{L}{2,}/gu) ?? [];
  const letters = words.reduce((n, w) => n + [...w].length, 0);
  const visible = [...text].filter((c) => !/\s/u.test(c)).length;
  return words.length >= 2 && letters * 2 >= visible;
}

/** Why a reason cannot be sent yet, or null. */
function reasonProblem(reason: string): string | null {
  if (reason.length < REJECT_REASON_MIN_CHARS) return REJECT_REASON_REQUIRED;
  return saysSomething(reason) ? null : REJECT_REASON_WORDS;
}

/**
 * Reject an in-progress job (SPEC §4 step 4): the reason is required (the client reads it) and the
 * rejection is confirmed in a second step of the same dialog before it is sent.
 */
export function RejectDialog({ job, onClose, onDone }: { job: DesignerJob; onClose: () => void; onDone: () => void }) {
  const [notes, setNotes] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [sending, setSending] = useState(false);
  const reason = notes.trim();
  const notesId = `reject-notes-${job.id}`;

  const review = (e: FormEvent) => {
    e.preventDefault();
    const problem = reasonProblem(reason);
    if (problem) {
      setError(problem);
      return;
    }
    setError(null);
    setConfirming(true);
  };

  const send = async () => {
    setSending(true);
    try {
      await rejectJob(job.id, reason);
      toast({ title: 'Lavoro rifiutato', description: `${job.original_filename}: il cliente è stato avvisato.` });
      onDone();
    } catch (err) {
      toast({ title: errorTitle(err, 'Impossibile rifiutare il lavoro'), description: errorMessage(err), variant: 'destructive' });
      setSending(false);
      setConfirming(false);
    }
  };

  if (confirming) {
    return (
      <Dialog key="confirm" title="Confermi il rifiuto?" description={job.original_filename} onClose={onClose}>
        <div className="form">
          <p>Il cliente riceverà questo motivo e i crediti riservati gli saranno restituiti. Il lavoro non potrà essere ripreso.</p>
          <blockquote className="job-notes">{reason}</blockquote>
          <div className="dialog-actions">
            <button type="button" className="btn btn-outline" onClick={() => setConfirming(false)} disabled={sending}>
              Modifica il motivo
            </button>
            <button type="button" className="btn btn-danger" onClick={() => void send()} disabled={sending}>
              {sending ? 'Invio...' : 'Conferma rifiuto'}
            </button>
          </div>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog key="reason" title="Rifiuta lavoro" description={job.original_filename} onClose={onClose}>
      <form className="form" onSubmit={review} noValidate>
        <div className="field">
          <label htmlFor={notesId}>Motivo del rifiuto (obbligatorio)</label>
          <textarea
            id={notesId}
            className="input"
            rows={3}
            maxLength={2000}
            required
            value={notes}
            onChange={(e) => {
              setNotes(e.target.value);
              if (error && reasonProblem(e.target.value.trim()) === null) setError(null);
            }}
            aria-invalid={error ? true : undefined}
            aria-describedby={`reject-hint-${job.id}${error ? ` reject-error-${job.id}` : ''}`}
          />
          <p id={`reject-hint-${job.id}`} className="field-hint">
            Il cliente riceve questo testo come motivazione: spiega in poche parole perché la foto non si può lavorare.
          </p>
          {error ? (
            <p id={`reject-error-${job.id}`} className="form-error" role="alert">
              {error}
            </p>
          ) : null}
        </div>
        <div className="dialog-actions">
          <button type="button" className="btn btn-outline" onClick={onClose}>
            Annulla
          </button>
          <button type="submit" className="btn btn-danger">
            Rifiuta lavoro
          </button>
        </div>
      </form>
    </Dialog>
  );
}
