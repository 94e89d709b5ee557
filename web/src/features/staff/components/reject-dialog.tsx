import { useState, type FormEvent } from 'react';
import { Dialog } from '@/components/ui/dialog';
import { toast } from '@/components/ui/toast';
import { errorMessage, errorTitle } from '@/lib/api-client';
import { rejectJob } from '../api/designer-api';
import type { DesignerJob } from '../api/types';

/** Reject an in-progress job; the notes are the reason the client reads (SPEC §4 step 4). */
export function RejectDialog({ job, onClose, onDone }: { job: DesignerJob; onClose: () => void; onDone: () => void }) {
  const [notes, setNotes] = useState('');
  const [sending, setSending] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSending(true);
    try {
      await rejectJob(job.id, notes);
      toast({ title: 'Lavoro rifiutato', description: `${job.original_filename}: il cliente è stato avvisato.` });
      onDone();
    } catch (error) {
      toast({ title: errorTitle(error, 'Impossibile rifiutare il lavoro'), description: errorMessage(error), variant: 'destructive' });
      setSending(false);
    }
  };

  return (
    <Dialog title="Rifiuta lavoro" description={job.original_filename} onClose={onClose}>
      <form className="form" onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label htmlFor={`reject-notes-${job.id}`}>Motivo del rifiuto</label>
          <textarea
            id={`reject-notes-${job.id}`}
            className="input"
            rows={3}
            value={notes}
            onChange={(e) => setNotes(e.target.value)}
            aria-describedby={`reject-hint-${job.id}`}
          />
          <p id={`reject-hint-${job.id}`} className="field-hint">
            Il cliente riceve questo testo come motivazione.
          </p>
        </div>
        <div className="dialog-actions">
          <button type="button" className="btn btn-outline" onClick={onClose} disabled={sending}>
            Annulla
          </button>
          <button type="submit" className="btn btn-danger" disabled={sending}>
            {sending ? 'Invio...' : 'Rifiuta lavoro'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
