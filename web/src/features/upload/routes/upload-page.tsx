import { Camera } from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { Link } from 'react-router-dom';
import { Badge } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import { Progress } from '@/components/ui/progress';
import { toast } from '@/components/ui/toast';
import { LARGE_BATCH_THRESHOLD } from '@/config/constants';
import { errorMessage, errorTitle } from '@/lib/api-client';
import { effectiveRole, ME_QUERY_KEY, useMe } from '@/lib/auth';
import { creditCount, formatBytes } from '@/lib/format';
import { PHOTOS_KEY, shownJob, useJobStatusText, useRecentPhotos } from '@/lib/photos';
import { CONFIG_KEY, creditsPerPhoto, formatList, getConfig, useConfig } from '@/lib/app-config';
import { useOnChange } from '@/lib/use-on-change';
import { uploadPhotos, type UploadInput } from '../api/upload-api';
import { checkBatch, estimatedMinutes, filesWithoutImageContent, NOT_AN_IMAGE, uploadLimits } from '../lib/validation';

type ItemStatus = 'queued' | 'uploading' | 'uploaded' | 'error';

interface UploadItem {
  id: string;
  file: File;
  preview: string | null;
  status: ItemStatus;
  photoId?: string;
  errorMessage?: string;
  /** Refused for what the file is (not an image, empty, too large): sending it again cannot help. */
  refused?: boolean;
}

/** "scarpa.txt: Solo le immagini sono supportate"; a reason that already names the file stays as it is. */
const withName = (name: string, reason: string) => (reason.includes(name) ? reason : `${name}: ${reason}`);

const LOCAL_LABELS: Record<ItemStatus, string> = {
  queued: 'In coda',
  uploading: 'Caricamento...',
  uploaded: 'Caricata',
  error: 'Errore upload',
};

/** The file picker's types when the server's list is not there yet. */
const FALLBACK_ACCEPT = 'image/*,.cr2,.nef,.arw,.dng,.heic,.heif';
/** A touch screen without a mouse (phones, tablets): no dragging, a tap opens the picker. */
const COARSE_POINTER = '(pointer: coarse)';

/** Whether the main pointer is a finger (`COARSE_POINTER`), following changes. */
function useCoarsePointer(): boolean {
  const media = () => (typeof window.matchMedia === 'function' ? window.matchMedia(COARSE_POINTER) : null);
  const [coarse, setCoarse] = useState(() => media()?.matches ?? false);
  useEffect(() => {
    const query = media();
    if (!query) return undefined;
    const onChange = () => setCoarse(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return coarse;
}

let counter = 0;
const makePreview = (f: File) => (typeof URL.createObjectURL === 'function' ? URL.createObjectURL(f) : null);

export function UploadPage() {
  const me = useMe();
  const photos = useRecentPhotos(50); // the batch just uploaded (admins: up to 25) is among the newest
  const queryClient = useQueryClient();
  const inputRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLElement>(null);
  const touch = useCoarsePointer();
  const [items, setItems] = useState<UploadItem[]>([]);
  const [dragging, setDragging] = useState(false);
  const [busy, setBusy] = useState(false);
  const [jobType, setJobType] = useState<UploadInput['jobType']>('background_removal');
  // null = the server's first background category and default preset (GET /api/config)
  const [chosenCategory, setCategory] = useState<string | null>(null);
  const [chosenPreset, setPreset] = useState<string | null>(null);
  const [brand, setBrand] = useState('');
  const [productCategory, setProductCategory] = useState('');
  const [clientNotes, setClientNotes] = useState('');
  // the seller's defaults from /profile prefill brand and category (until edited here)
  const defaultBrand = me.data?.default_brand ?? '';
  const defaultCategory = me.data?.default_category ?? '';
  useOnChange([defaultBrand, defaultCategory], () => {
    if (defaultBrand) setBrand((current) => current || defaultBrand);
    if (defaultCategory) setProductCategory((current) => current || defaultCategory);
  });

  const role = effectiveRole(me.data);
  const credits = me.data?.credits_remaining;
  const creditsLoading = me.isPending;
  const queued = items.filter((i) => i.status === 'queued');
  // credits per photo by job type, the accepted formats, the batch limits, presets and background
  // categories, from the server (undefined while loading)
  const config = useConfig().data;
  const statusText = useJobStatusText();
  const limits = uploadLimits(config, role === 'admin');
  const category = chosenCategory ?? config?.background_categories[0]?.value ?? '';
  const preset = chosenPreset ?? config?.default_preset ?? '';
  const costs = config?.job_costs;
  const accept = config ? ['image/*', ...config.accepted_extensions].join(',') : FALLBACK_ACCEPT;
  const costPerPhoto = costs?.[jobType];

  const itemsRef = useRef(items);
  useEffect(() => {
    itemsRef.current = items;
  }, [items]);
  // Revoke the previews when leaving the page.
  useEffect(() => () => itemsRef.current.forEach((i) => i.preview && URL.revokeObjectURL(i.preview)), []);

  const addFiles = async (list: FileList | File[] | null) => {
    if (!list) return;
    const files = Array.from(list);
    // files chosen before the server's limits arrive (GET /api/config) are checked once they do
    let rules = limits;
    if (!rules) {
      try {
        rules = uploadLimits(await queryClient.ensureQueryData({ queryKey: CONFIG_KEY, queryFn: getConfig }), role === 'admin');
      } catch (error) {
        toast({ title: errorTitle(error, 'Errore upload'), description: errorMessage(error), variant: 'destructive' });
        return;
      }
      if (!rules) return;
    }
    // by content too (the magic bytes), before anything is listed as queued or counted in the cost
    const notImages = await filesWithoutImageContent(files);
    const queued = itemsRef.current.filter((i) => i.status === 'queued');
    const listedBytes = queued.reduce((s, i) => s + i.file.size, 0);
    const { accepted, ignored, issues } = checkBatch(files, queued.length, listedBytes, rules, notImages);
    issues.forEach((issue) => toast({ ...issue, variant: 'destructive' }));
    // non-images stay in the list, by name and with the reason, but are never sent
    const refusedItems: UploadItem[] = ignored.map((file) => ({ id: `u${++counter}`, file, preview: null, status: 'error', errorMessage: NOT_AN_IMAGE, refused: true }));
    const acceptedItems: UploadItem[] = accepted.map((file) => ({ id: `u${++counter}`, file, preview: makePreview(file), status: 'queued' }));
    if (refusedItems.length + acceptedItems.length === 0) return;
    setItems((prev) => [...prev, ...acceptedItems, ...refusedItems]);
  };

  const remove = (id: string) =>
    setItems((prev) =>
      prev.filter((i) => {
        if (i.id === id && i.preview) URL.revokeObjectURL(i.preview);
        return i.id !== id;
      }),
    );

  const start = async () => {
    if (creditsLoading) {
      toast({ title: 'Caricamento crediti in corso...', description: 'Attendi un momento e riprova.' });
      return;
    }
    const batch = items.filter((i) => i.status === 'queued');
    if (batch.length === 0) return;
    const sentType = jobType;
    const ids = new Set(batch.map((i) => i.id));
    setBusy(true);
    setItems((prev) => prev.map((i) => (ids.has(i.id) ? { ...i, status: 'uploading' } : i)));
    // the list with the live status is below the form: bring it into view
    requestAnimationFrame(() => listRef.current?.scrollIntoView?.({ behavior: 'smooth', block: 'start' }));
    try {
      const { photos: created, rejected } = await uploadPhotos({
        files: batch.map((i) => i.file),
        jobType: sentType,
        backgroundCategory: category,
        preset,
        brand,
        category: productCategory,
        clientNotes,
      });
      // the created photos come in the order of the files the server kept; `index` names the refused ones
      const refusedAt = new Map(rejected.map((r) => [r.index, r]));
      const photoIds = created.map((p) => p.id).reverse();
      const outcome = new Map<string, Partial<UploadItem>>(
        batch.map((item, idx): [string, Partial<UploadItem>] => {
          const refusal = refusedAt.get(idx);
          if (!refusal) return [item.id, { status: 'uploaded', photoId: photoIds.pop() }];
          if (item.preview) URL.revokeObjectURL(item.preview); // not an image the browser could show either
          return [item.id, { status: 'error', errorMessage: refusal.detail, refused: true, preview: null }];
        }),
      );
      setItems((prev) => prev.map((i) => ({ ...i, ...(outcome.get(i.id) ?? {}) })));
      if (created.length > 0) {
        // a designer's job is not 'in elaborazione' now: it is delivered in 24–48 working hours
        const description =
          sentType === 'background_removal_human'
            ? `${created.length} foto ${created.length === 1 ? 'inviata' : 'inviate'} al team grafico: consegna in 24-48 ore lavorative.`
            : `${created.length} foto in elaborazione.`;
        toast({ title: 'Foto caricate', description });
      }
      if (rejected.length > 0) {
        toast({
          title: rejected.length === 1 ? (rejected[0].title ?? 'Errore upload') : `${rejected.length} file non caricati`,
          description: rejected.map((r) => withName(r.filename, r.detail)).join(' · '),
          variant: 'destructive',
        });
      }
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: PHOTOS_KEY }),
        queryClient.invalidateQueries({ queryKey: ME_QUERY_KEY }),
      ]);
    } catch (error) {
      const message = errorMessage(error);
      setItems((prev) => prev.map((i) => (ids.has(i.id) ? { ...i, status: 'error', errorMessage: message } : i)));
      toast({ title: errorTitle(error, 'Errore upload'), description: message, variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  const retry = (id: string) => setItems((prev) => prev.map((i) => (i.id === id ? { ...i, status: 'queued', errorMessage: undefined } : i)));

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void addFiles(e.dataTransfer.files);
  };

  const photoById = new Map((photos.data?.items ?? []).map((p) => [p.id, p]));
  const notEnoughCredits = credits !== undefined && costPerPhoto !== undefined && queued.length * costPerPhoto > credits;

  return (
    <div className="page">
      <header className="page-header">
        <h1>Carica le tue foto</h1>
        <p className="muted">
          {touch ? 'Tocca per scegliere le foto.' : 'Trascina le immagini o sceglile dal computer.'} Formati supportati:{' '}
          {formatList(config?.accepted_formats)}. Massimo {limits?.maxFiles ?? '…'} foto e {limits?.maxTotalMb ?? '…'}MB per caricamento {limits?.label ?? ''}.
        </p>
      </header>

      <div className="upload-grid">
        <Card>
          <fieldset className="job-type">
            <legend>Tipo di elaborazione</legend>
            <label className="radio">
              <input type="radio" name="job_type" value="background_removal" checked={jobType === 'background_removal'} onChange={() => setJobType('background_removal')} />
              Sfondo bianco (AI) – {creditsPerPhoto(costs?.background_removal)}
            </label>
            <label className="radio">
              <input type="radio" name="job_type" value="smart_backgrounds" checked={jobType === 'smart_backgrounds'} onChange={() => setJobType('smart_backgrounds')} />
              Sfondo creativo (AI) – {creditsPerPhoto(costs?.smart_backgrounds)}
            </label>
            <label className="radio">
              <input type="radio" name="job_type" value="background_removal_human" checked={jobType === 'background_removal_human'} onChange={() => setJobType('background_removal_human')} />
              Ritocco del team grafico – {creditsPerPhoto(costs?.background_removal_human)}, consegna in 24-48 ore lavorative
            </label>
            {jobType === 'background_removal_human' ? (
              <div className="field">
                <label htmlFor="client-notes">Indicazioni per il grafico (facoltative)</label>
                <textarea id="client-notes" className="input" rows={3} maxLength={2000} value={clientNotes} onChange={(e) => setClientNotes(e.target.value)} />
              </div>
            ) : null}
            {jobType === 'smart_backgrounds' ? (
              <div className="field">
                <label htmlFor="bg-category">Categoria di sfondo</label>
                <select id="bg-category" className="input" value={category} onChange={(e) => setCategory(e.target.value)}>
                  {(config?.background_categories ?? []).map((c) => (
                    <option key={c.value} value={c.value}>
                      {c.label}
                    </option>
                  ))}
                </select>
              </div>
            ) : null}
          </fieldset>
          {jobType !== 'background_removal_human' ? (
            <fieldset className="job-options">
              <legend>Formato e nome dei file</legend>
              <div className="field">
                <label htmlFor="output-preset">Formato di uscita</label>
                <select id="output-preset" className="input" value={preset} onChange={(e) => setPreset(e.target.value)}>
                  {(config?.presets ?? []).map((p) => (
                    <option key={p.value} value={p.value}>
                      {p.label}
                    </option>
                  ))}
                </select>
              </div>
              <div className="field">
                <label htmlFor="brand">Marca (facoltativa, per il nome SEO)</label>
                <input id="brand" className="input" maxLength={100} value={brand} onChange={(e) => setBrand(e.target.value)} />
              </div>
              <div className="field">
                <label htmlFor="product-category">Categoria prodotto (facoltativa)</label>
                <input id="product-category" className="input" maxLength={100} value={productCategory} onChange={(e) => setProductCategory(e.target.value)} />
              </div>
            </fieldset>
          ) : null}

          <div
            className={`dropzone ${dragging ? 'dragging' : ''}`}
            onDragOver={(e) => {
              e.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={onDrop}
            data-testid="dropzone"
          >
            <span className="dropzone-icon" aria-hidden="true">
              <Camera size={32} />
            </span>
            {touch ? (
              <button type="button" className="btn btn-primary" onClick={() => inputRef.current?.click()}>
                Tocca per scegliere le foto
              </button>
            ) : (
              <>
                <p>
                  <strong>Trascina qui le tue foto</strong>
                </p>
                <p className="muted">oppure</p>
                <button type="button" className="btn btn-outline" onClick={() => inputRef.current?.click()}>
                  Scegli file
                </button>
              </>
            )}
            <input
              ref={inputRef}
              type="file"
              accept={accept}
              multiple
              className="sr-only"
              aria-label="Seleziona foto"
              onChange={(e) => {
                void addFiles(e.target.files);
                e.target.value = '';
              }}
            />
          </div>
        </Card>

        <Card className="upload-side" aria-label="Crediti e coda">
          <p className="stat-label">Crediti disponibili</p>
          <p className="stat-value" aria-live="polite">
            {creditsLoading ? '…' : (credits ?? 0)}
          </p>
          <p className="muted">
            In coda: {queued.length} foto · costo {costPerPhoto === undefined ? '… crediti' : creditCount(queued.length * costPerPhoto)}
          </p>
          {queued.length > LARGE_BATCH_THRESHOLD ? (
            <p className="notice" role="note">
              Caricamento numeroso: {queued.length} foto. Tempo stimato circa {estimatedMinutes(queued.length)} minuti.
            </p>
          ) : null}
          {notEnoughCredits ? (
            <p className="notice warning" role="note">
              Crediti insufficienti per tutte le foto: le elaborazioni in eccesso attenderanno nuovi crediti.{' '}
              <Link to="/credits">Acquista crediti</Link>
            </p>
          ) : null}
          <button type="button" className="btn btn-primary btn-block" disabled={busy || queued.length === 0 || creditsLoading || !config} onClick={start}>
            {creditsLoading ? 'Caricamento crediti in corso...' : busy ? 'Caricamento...' : `Carica ${queued.length} foto`}
          </button>
          <Link to="/photos" className="btn btn-ghost btn-block">
            Vai alle foto processate
          </Link>
        </Card>
      </div>

      {items.length > 0 ? (
        <section ref={listRef} aria-labelledby="upload-list-title" className="upload-list-section">
          <h2 id="upload-list-title" className="card-title">
            File selezionati
          </h2>
          <ul className="upload-list">
            {items.map((item) => {
              const photo = item.photoId ? photoById.get(item.photoId) : undefined;
              const job = photo ? shownJob(photo) : null;
              const label = photo ? statusText.label(job?.status ?? null) : item.refused ? 'Non caricato' : LOCAL_LABELS[item.status];
              const tone = photo ? statusText.tone(job?.status) : item.status === 'error' ? 'danger' : item.status === 'uploaded' ? 'success' : 'neutral';
              const progress = job?.status === 'processing' || job?.status === 'in_progress_human' ? (job.progress_percentage ?? 0) : null;
              return (
                <li key={item.id} className="upload-item" aria-label={item.file.name}>
                  {item.preview ? <img src={item.preview} alt="" className="upload-thumb" /> : <span className="upload-thumb" aria-hidden="true" />}
                  <div className="upload-info">
                    <p className="upload-name">{item.file.name}</p>
                    <p className="muted upload-size">{formatBytes(item.file.size)}</p>
                    {item.status === 'uploading' ? <Progress value={50} label={`Caricamento di ${item.file.name}`} /> : null}
                    {progress !== null ? <Progress value={progress} label={`Elaborazione di ${item.file.name}`} /> : null}
                    {item.errorMessage ? <p className="form-error">{item.errorMessage}</p> : null}
                    {job?.error_message ? <p className="form-error">{job.error_message}</p> : null}
                  </div>
                  <Badge tone={tone}>{label}</Badge>
                  {item.status === 'queued' || item.refused ? (
                    <button type="button" className="btn btn-ghost btn-sm" aria-label={`Rimuovi ${item.file.name}`} onClick={() => remove(item.id)}>
                      ×
                    </button>
                  ) : null}
                  {item.status === 'error' && !item.refused ? (
                    <button type="button" className="btn btn-outline btn-sm" onClick={() => retry(item.id)}>
                      Riprova
                    </button>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
