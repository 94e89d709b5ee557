import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/components/ui/toast';
import { errorMessage, errorTitle } from '@/lib/api-client';
import { ME_QUERY_KEY, useMe } from '@/lib/auth';
import { confidencePercent, latestJob, PHOTOS_KEY, usePhotoPages, type PhotoSort, type StatusFilter } from '@/lib/photos';
import type { Photo } from '@/types/api';
import { isDownloadable, PhotoCard } from '../components/photo-card';
import { DeletePhotoDialog, ReworkDialog } from '../components/photo-dialogs';
import { deletePhoto, downloadPhoto, downloadZip, reprocessPhoto, requestRework, type DownloadFormat } from '../api/photos-api';

const FILTERS: { value: StatusFilter; label: string }[] = [
  { value: 'all', label: 'Tutte' },
  { value: 'completed', label: 'Completate' },
  { value: 'processing', label: 'In elaborazione' },
  { value: 'failed', label: 'Con errori' },
  { value: 'pending', label: 'In attesa' },
];

/** The orders the server offers (`GET /api/photos?sort=`). */
const SORTS: { value: PhotoSort; label: string }[] = [
  { value: 'newest', label: 'Più recenti' },
  { value: 'oldest', label: 'Meno recenti' },
  { value: 'name', label: 'Nome file (A-Z)' },
  { value: 'status', label: 'Stato' },
];


/** Pause after typing before the search goes to the server. */
export const SEARCH_DEBOUNCE_MS = 300;

/** `value`, once it has stopped changing for `ms`. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export function PhotosPage() {
  const me = useMe();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState<StatusFilter>('all');
  const [sort, setSort] = useState<PhotoSort>('newest');
  const query = useDebounced(search, SEARCH_DEBOUNCE_MS);
  // search, filter, sort and pages are the server's (GET /api/photos); the summary is its `counts`
  const photos = usePhotoPages({ q: query, status: filter, sort });
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = photos;
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [busyId, setBusyId] = useState<string | null>(null);
  const [bulkBusy, setBulkBusy] = useState(false);
  const [asking, setAsking] = useState<{ kind: 'delete' | 'rework'; photo: Photo } | null>(null);

  const all = useMemo(() => photos.data?.pages.flatMap((p) => p.items) ?? [], [photos.data]);
  const counts = photos.data?.pages[0]?.counts ?? { total: 0, completed: 0, processing: 0, rejected: 0, designer_queue: 0 };
  const visible = all;

  // infinite scroll: the next page loads when the end of the grid comes into view ('Carica altre' too)
  const sentinel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const node = sentinel.current;
    if (!node || !hasNextPage || typeof IntersectionObserver === 'undefined') return undefined;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
    });
    observer.observe(node);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  const downloadable = all.filter(isDownloadable);
  const selectedPhotos = downloadable.filter((p) => selected.has(p.id));

  const toggle = (id: string, on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const download = async (photo: Photo, format: DownloadFormat) => {
    setBusyId(photo.id);
    try {
      await downloadPhoto(photo, format);
    } catch (error) {
      toast({ title: 'Errore download', description: errorMessage(error, 'Impossibile scaricare la foto'), variant: 'destructive' });
    } finally {
      setBusyId(null);
    }
  };

  const downloadSelected = async () => {
    setBulkBusy(true);
    try {
      await downloadZip(selectedPhotos.map((p) => p.id));
    } catch (error) {
      toast({ title: 'Errore download', description: errorMessage(error, 'Errore durante il download di alcune foto'), variant: 'destructive' });
    } finally {
      setBulkBusy(false);
    }
  };

  /** Whether the photo's job waits for designers and none has started it: deleting cancels it. */
  const queuedForDesigners = (photo: Photo) => ['pending_human', 'assigned_to_graphic'].includes(latestJob(photo)?.status ?? '');

  /** Deletes after the confirmation dialog; true when done (the dialog closes), false to keep it open.
   * A photo queued for designers and not started yet: deleting cancels the job and returns the credits. */
  const remove = async (photo: Photo): Promise<boolean> => {
    const queued = queuedForDesigners(photo);
    setBusyId(photo.id);
    try {
      await deletePhoto(photo.id);
      toast({ title: 'Foto eliminata', description: queued ? 'Lavoro annullato: i crediti riservati ti sono stati restituiti.' : undefined });
      toggle(photo.id, false);
      await Promise.all([queryClient.invalidateQueries({ queryKey: PHOTOS_KEY }), queryClient.invalidateQueries({ queryKey: ME_QUERY_KEY })]);
      return true;
    } catch (error) {
      toast({ title: 'Errore', description: errorMessage(error, "Impossibile eliminare la foto"), variant: 'destructive' });
      return false;
    } finally {
      setBusyId(null);
    }
  };

  const reprocess = async (photo: Photo) => {
    if ((me.data?.credits_remaining ?? 0) <= 0) {
      toast({ title: 'Crediti insufficienti', description: 'Acquista crediti per rielaborare la foto.', variant: 'destructive' });
      return;
    }
    setBusyId(photo.id);
    try {
      await reprocessPhoto(photo.id);
      toast({ title: 'Rielaborazione avviata', description: photo.original_filename });
      await Promise.all([queryClient.invalidateQueries({ queryKey: PHOTOS_KEY }), queryClient.invalidateQueries({ queryKey: ME_QUERY_KEY })]);
    } catch (error) {
      toast({ title: errorTitle(error, 'Errore processamento'), description: errorMessage(error, 'Impossibile avviare la rielaborazione'), variant: 'destructive' });
    } finally {
      setBusyId(null);
    }
  };

  const rework = async (photo: Photo, notes: string | undefined): Promise<boolean> => {
    setBusyId(photo.id);
    try {
      await requestRework(photo.id, notes);
      toast({ title: 'Revisione richiesta', description: 'Il nostro team grafico rielaborerà la foto entro 24-48 ore lavorative.' });
      await queryClient.invalidateQueries({ queryKey: PHOTOS_KEY });
      return true;
    } catch (error) {
      toast({ title: errorTitle(error, 'Errore'), description: errorMessage(error), variant: 'destructive' });
      return false;
    } finally {
      setBusyId(null);
    }
  };

  /** 'Fai rifinire a un grafico' on a result flagged 'Da verificare': the free rework, in one click. */
  const reviewRework = async (photo: Photo) => {
    const confidence = confidencePercent(latestJob(photo));
    const notes = `Da verificare: il ritocco automatico non era sicuro di aver isolato il prodotto giusto${confidence === null ? '' : ` (affidabilità ${confidence}%)`}.`;
    setBusyId(photo.id);
    try {
      await requestRework(photo.id, notes);
      toast({ title: 'Revisione richiesta', description: 'Un grafico rifinirà la foto gratis entro 24-48 ore lavorative; intanto il risultato attuale resta scaricabile.' });
      await queryClient.invalidateQueries({ queryKey: PHOTOS_KEY });
    } catch (error) {
      toast({ title: errorTitle(error, 'Errore'), description: errorMessage(error), variant: 'destructive' });
    } finally {
      setBusyId(null);
    }
  };

  return (
    <div className="page">
      <header className="page-header">
        <h1>Foto Processate</h1>
        <p className="muted" aria-live="polite">
          {counts.total} foto · {counts.completed} completate · {counts.processing} in elaborazione
          {counts.designer_queue > 0 ? ` · ${counts.designer_queue} in coda per i grafici` : ''}
          {counts.rejected > 0 ? ` · ${counts.rejected} ${counts.rejected === 1 ? 'rifiutata' : 'rifiutate'} dai grafici` : ''} · {selectedPhotos.length} selezionate
        </p>
      </header>

      <Card className="photos-toolbar">
        <div className="field grow">
          <label htmlFor="photo-search">Cerca per nome file</label>
          <input id="photo-search" type="search" className="input" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Nome originale o nome SEO" />
        </div>
        <div className="field toolbar-select">
          <label htmlFor="photo-filter">Stato</label>
          <select id="photo-filter" className="input" value={filter} onChange={(e) => setFilter(e.target.value as StatusFilter)}>
            {FILTERS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field toolbar-select">
          <label htmlFor="photo-sort">Ordina per</label>
          <select id="photo-sort" className="input" value={sort} onChange={(e) => setSort(e.target.value as PhotoSort)}>
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <div className="toolbar-buttons">
          <button type="button" className="btn btn-outline" disabled={downloadable.length === 0} onClick={() => setSelected(new Set(downloadable.map((p) => p.id)))}>
            Seleziona completate
          </button>
          <button type="button" className="btn btn-primary" disabled={selectedPhotos.length === 0 || bulkBusy} onClick={downloadSelected}>
            {bulkBusy ? 'Download in corso...' : `Scarica selezionate (${selectedPhotos.length})`}
          </button>
        </div>
      </Card>

      {photos.isPending ? (
        <Spinner label="Caricamento foto..." />
      ) : photos.isError ? (
        <Card role="alert" className="empty-state">
          <p>Impossibile caricare le foto processate</p>
          <p>{errorMessage(photos.error)}</p>
          <button type="button" className="btn btn-primary" onClick={() => void photos.refetch()}>
            Riprova
          </button>
        </Card>
      ) : counts.total === 0 ? (
        <Card className="empty-state">
          <h2>Nessuna foto ancora</h2>
          <p>Carica le tue prime foto: le trovi qui appena elaborate.</p>
          <Link to="/upload" className="btn btn-primary">
            Carica foto
          </Link>
        </Card>
      ) : visible.length === 0 ? (
        <Card className="empty-state">
          <h2>Nessuna foto trovata</h2>
          <p>Nessuna foto corrisponde alla ricerca o al filtro scelto.</p>
          <button
            type="button"
            className="btn btn-outline"
            onClick={() => {
              setSearch('');
              setFilter('all');
            }}
          >
            Mostra tutte
          </button>
        </Card>
      ) : (
        <div className="photo-grid">
          {visible.map((p) => (
            <PhotoCard
              key={p.id}
              photo={p}
              selected={selected.has(p.id)}
              onSelect={(on) => toggle(p.id, on)}
              onDownload={(format) => void download(p, format)}
              onReprocess={() => void reprocess(p)}
              onRework={() => setAsking({ kind: 'rework', photo: p })}
              onReviewRework={() => void reviewRework(p)}
              onDelete={() => setAsking({ kind: 'delete', photo: p })}
              busy={busyId === p.id}
            />
          ))}
        </div>
      )}
      {hasNextPage && visible.length > 0 ? (
        <div ref={sentinel} className="load-more">
          <button type="button" className="btn btn-outline" disabled={isFetchingNextPage} onClick={() => void fetchNextPage()}>
            {isFetchingNextPage ? 'Caricamento...' : 'Carica altre'}
          </button>
        </div>
      ) : null}
      {asking?.kind === 'delete' ? <DeletePhotoDialog photo={asking.photo} queued={queuedForDesigners(asking.photo)} onClose={() => setAsking(null)} onConfirm={() => remove(asking.photo)} /> : null}
      {asking?.kind === 'rework' ? <ReworkDialog photo={asking.photo} onClose={() => setAsking(null)} onConfirm={(notes) => rework(asking.photo, notes)} /> : null}
    </div>
  );
}
