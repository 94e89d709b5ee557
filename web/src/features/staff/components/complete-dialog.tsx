import { useEffect, useRef, useState, type DragEvent } from 'react';
import { Spinner } from '@/components/ui/spinner';
import { Dialog } from '@/components/ui/dialog';
import { toast } from '@/components/ui/toast';
import { errorMessage, errorTitle } from '@/lib/api-client';
import { formatBytes } from '@/lib/format';
import { completeJob, fetchOriginal } from '../api/designer-api';
import { checkResultFile, RESULT_TYPES } from '../lib/jobs';
import type { DesignerJob } from '../api/types';

type Original = { state: 'loading' } | { state: 'ready'; url: string } | { state: 'error'; message: string };

/** An object URL for `file`, revoked when the file changes or the component goes away. */
function useObjectUrl(file: Blob | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!file) {
      // eslint-disable-next-line react-hooks/set-state-in-effect -- the URL is an external resource, created and revoked with the file
      setUrl(null);
      return;
    }
    const u = URL.createObjectURL(file);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [file]);
  return url;
}

/**
 * Completion dialog: the original (fetched as a blob) beside the chosen result, a file picker and
 * drop zone (first file only, SPEC §5 checks), optional notes for the client.
 */
export function CompleteDialog({ job, onClose, onDone }: { job: DesignerJob; onClose: () => void; onDone: () => void }) {
  const [original, setOriginal] = useState<Original>({ state: 'loading' });
  const [file, setFile] = useState<File | null>(null);
  const [notes, setNotes] = useState('');
  const [dragging, setDragging] = useState(false);
  const [sending, setSending] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const resultUrl = useObjectUrl(file);

  useEffect(() => {
    const controller = new AbortController();
    let url: string | null = null;
    fetchOriginal(job.id, controller.signal)
      .then((blob) => {
        url = URL.createObjectURL(blob);
        setOriginal({ state: 'ready', url });
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        const message = errorMessage(error, 'Impossibile caricare la foto originale');
        setOriginal({ state: 'error', message });
        toast({ title: 'Foto non trovata', description: message, variant: 'destructive' });
      });
    return () => {
      controller.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [job.id]);

  const choose = (files: FileList | null) => {
    const first = files?.[0];
    if (!first) return;
    const issue = checkResultFile(first);
    if (issue) {
      toast({ ...issue, variant: 'destructive' });
      return;
    }
    setFile(first);
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    choose(e.dataTransfer.files);
  };

  const submit = async () => {
    if (!file) return;
    setSending(true);
    try {
      await completeJob(job.id, file, notes);
      toast({ title: 'Lavoro completato', description: `${job.original_filename}: il cliente è stato avvisato.` });
      onDone();
    } catch (error) {
      toast({ title: errorTitle(error, 'Errore upload'), description: errorMessage(error), variant: 'destructive' });
      setSending(false);
    }
  };

  return (
    <Dialog title="Completa lavoro" description={job.original_filename} onClose={onClose} wide>
      <div className="compare-panels">
        <figure className="compare-panel">
          <figcaption>Originale</figcaption>
          {original.state === 'loading' ? (
            <Spinner label="Caricamento originale..." />
          ) : original.state === 'ready' ? (
            <img src={original.url} alt={`Originale: ${job.original_filename}`} />
          ) : (
            <p className="form-error">{original.message}</p>
          )}
        </figure>
        <figure className="compare-panel">
          <figcaption>Elaborata</figcaption>
          {resultUrl && file ? <img src={resultUrl} alt={`Elaborata: ${file.name}`} /> : <p className="muted">Nessun file scelto</p>}
        </figure>
      </div>

      <div
        className={`dropzone compact ${dragging ? 'dragging' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        data-testid="result-dropzone"
      >
        <p>
          <strong>Trascina qui la foto elaborata</strong>
        </p>
        <p className="muted">JPG, PNG o WebP, massimo 10MB</p>
        <button type="button" className="btn btn-outline btn-sm" onClick={() => inputRef.current?.click()}>
          Scegli file
        </button>
        <input
          ref={inputRef}
          type="file"
          accept={RESULT_TYPES.join(',')}
          className="sr-only"
          aria-label="Foto elaborata"
          onChange={(e) => {
            choose(e.target.files);
            e.target.value = '';
          }}
        />
        {file ? (
          <p className="muted" aria-live="polite">
            Scelto: {file.name} ({formatBytes(file.size)})
          </p>
        ) : null}
      </div>

      <div className="field">
        <label htmlFor={`complete-notes-${job.id}`}>Note per il cliente (facoltative)</label>
        <textarea
          id={`complete-notes-${job.id}`}
          className="input"
          rows={3}
          maxLength={2000}
          value={notes}
          onChange={(e) => setNotes(e.target.value)}
          aria-describedby={`complete-notes-hint-${job.id}`}
        />
        <p id={`complete-notes-hint-${job.id}`} className="field-hint">
          Il cliente le legge sulla foto, nella notifica e nell'e-mail 'Foto pronta'.
        </p>
      </div>

      <div className="dialog-actions">
        <button type="button" className="btn btn-outline" onClick={onClose} disabled={sending}>
          Annulla
        </button>
        <button type="button" className="btn btn-primary" onClick={() => void submit()} disabled={!file || sending}>
          {sending ? 'Caricamento...' : 'Completa lavoro'}
        </button>
      </div>
    </Dialog>
  );
}
