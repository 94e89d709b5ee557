import { useId, useState, type FormEvent } from 'react';
import { Dialog } from '@/components/ui/dialog';
import type { Photo } from '@/types/api';

/**
 * Asks before deleting a photo. `onConfirm` resolves true when the photo is gone (the dialog closes)
 * and false on failure (the dialog stays open, the error toast shows above it).
 */
export function DeletePhotoDialog({
  photo,
  queued = false,
  onClose,
  onConfirm,
}: {
  photo: Photo;
  /** The job waits for designers and none has started it: deleting cancels it and returns the credits. */
  queued?: boolean;
  onClose: () => void;
  onConfirm: () => Promise<boolean>;
}) {
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    const done = await onConfirm();
    if (done) onClose();
    else setBusy(false);
  };
  return (
    <Dialog
      title="Eliminare la foto?"
      description={
        queued
          ? `Il lavoro dei grafici su "${photo.original_filename}" verrà annullato e la foto eliminata definitivamente. I crediti riservati ti verranno restituiti.`
          : `"${photo.original_filename}" e i suoi risultati verranno eliminati definitivamente.`
      }
      onClose={onClose}
    >
      <div className="dialog-actions">
        <button type="button" className="btn btn-outline" onClick={onClose} disabled={busy}>
          Annulla
        </button>
        <button type="button" className="btn btn-danger" onClick={() => void confirm()} disabled={busy}>
          {busy ? 'Eliminazione...' : 'Elimina'}
        </button>
      </div>
    </Dialog>
  );
}

/** Free rework request with an optional note for the designers (what to improve). */
export function ReworkDialog({ photo, onClose, onConfirm }: { photo: Photo; onClose: () => void; onConfirm: (notes: string | undefined) => Promise<boolean> }) {
  const [notes, setNotes] = useState('');
  const [busy, setBusy] = useState(false);
  const id = useId();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const done = await onConfirm(notes.trim() || undefined);
    if (done) onClose();
    else setBusy(false);
  };
  return (
    <Dialog title="Revisione gratuita" description={photo.original_filename} onClose={onClose}>
      <form className="form" onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label htmlFor={`${id}-notes`}>Cosa vorresti migliorare in questa foto? (facoltativo)</label>
          <textarea id={`${id}-notes`} className="input" rows={3} value={notes} onChange={(e) => setNotes(e.target.value)} />
        </div>
        <div className="dialog-actions">
          <button type="button" className="btn btn-outline" onClick={onClose} disabled={busy}>
            Annulla
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Invio...' : 'Richiedi revisione'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
