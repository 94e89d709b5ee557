import { useEffect, useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import { Dialog } from '@/components/ui/dialog';
import { TableCard } from '@/components/ui/table-card';
import { LoadErrorCard } from '@/components/ui/load-error-card';
import { Spinner } from '@/components/ui/spinner';
import { formatDateTime } from '@/lib/format';
import { useConfig } from '@/lib/app-config';
import { useJobStatusText } from '@/lib/photos';
import { useOnChange } from '@/lib/use-on-change';
import { jobStatusValues } from '@/types/api';
import { useJobSearch, type JobSearch } from '../api/admin-api';
import { jobTypeLabel } from '../lib/timeline';
import { JobTimelineView } from './job-timeline';
import { Pagination, SortableHeader, type SortState } from './table-controls';

const PAGE_SIZE = 20;

/** The 'Stato' option for the AI results the overview counts as 'Risultati AI da verificare'
 * (`needs_review=true` on the server, not a job status). */
export const NEEDS_REVIEW_FILTER = 'needs_review';
const SEARCH_DELAY_MS = 300;

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return debounced;
}

/**
 * 'Lavori' tab: every job, AI or human, searched on the server by the owner's
 * e-mail or the photo's name, status (or the results flagged for review) and creation date; sortable
 * columns, pages of 20; each row opens the job's Italian timeline in a dialog over the table.
 */
export function AdminJobsTab({ initialStatus = '' }: { initialStatus?: string }) {
  const [text, setText] = useState('');
  const statusText = useJobStatusText();
  const config = useConfig().data;
  const [status, setStatus] = useState(initialStatus);
  const [dateFrom, setDateFrom] = useState('');
  const [dateTo, setDateTo] = useState('');
  const [sort, setSort] = useState<SortState>({ sort: 'created_at', order: 'desc' });
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const q = useDebounced(text, SEARCH_DELAY_MS);
  useOnChange([q, status, dateFrom, dateTo, sort], () => setPage(1));
  const needsReview = status === NEEDS_REVIEW_FILTER;
  const search: JobSearch = { q, status: needsReview ? '' : status, needsReview, dateFrom, dateTo, sort: sort.sort, order: sort.order, page, size: PAGE_SIZE };
  const jobs = useJobSearch(search);
  const rows = jobs.data?.items ?? [];
  const selected = rows.find((j) => j.id === open) ?? null;
  const header = (label: string, column: string, className?: string) => <SortableHeader label={label} column={column} state={sort} onSort={setSort} className={className} />;

  return (
    <div className="stack-lg">
      <Card className="jobs-filters">
        <div className="field grow">
          <label htmlFor="job-search">Cerca lavori</label>
          <input id="job-search" type="search" className="input" placeholder="Email utente o nome foto" value={text} onChange={(e) => setText(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="job-status">Stato</label>
          <select id="job-status" className="input" value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">Tutti</option>
            <option value={NEEDS_REVIEW_FILTER}>Da verificare (AI)</option>
            {jobStatusValues.map((s) => (
              <option key={s} value={s}>
                {statusText.label(s)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="job-from">Dal</label>
          <input id="job-from" type="date" className="input" value={dateFrom} onChange={(e) => setDateFrom(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="job-to">Al</label>
          <input id="job-to" type="date" className="input" value={dateTo} onChange={(e) => setDateTo(e.target.value)} />
        </div>
      </Card>

      {jobs.isPending ? (
        <Spinner label="Caricamento lavori..." />
      ) : jobs.isError ? (
        <LoadErrorCard title={'Impossibile caricare i lavori'} error={jobs.error} onRetry={() => void jobs.refetch()} />
      ) : (
        <TableCard>
          <table className="table table-cards jobs-table">
            <caption className="sr-only">Lavori</caption>
            <thead>
              <tr>
                {header('Foto', 'filename')}
                {header('Utente', 'email')}
                {header('Tipo', 'job_type', 'hide-narrow')}
                {header('Stato', 'status')}
                {header('Creato', 'created_at')}
                {header('Concluso', 'completed_at', 'hide-narrow')}
                <th scope="col">Cronologia</th>
              </tr>
            </thead>
            <tbody aria-busy={jobs.isFetching}>
              {rows.length === 0 ? (
                <tr>
                  <td colSpan={7} className="muted">
                    Nessun lavoro trovato.
                  </td>
                </tr>
              ) : null}
              {rows.map((j) => (
                <tr key={j.id}>
                    <th scope="row" className="cell-email">
                      {j.original_filename}
                    </th>
                    <td className="cell-email" data-label="Utente">
                      {j.user_email}
                    </td>
                    <td className="hide-narrow" data-label="Tipo">
                      {jobTypeLabel(j.job_type, config)}
                    </td>
                    <td data-label="Stato">
                      <Badge tone={statusText.tone(j.status)}>{statusText.label(j.status)}</Badge>
                      {j.overdue ? <Badge tone="danger">In ritardo</Badge> : null}
                    </td>
                    <td data-label="Creato">
                      <time dateTime={j.created_at}>{formatDateTime(j.created_at)}</time>
                    </td>
                    <td className="hide-narrow" data-label="Concluso">
                      {j.completed_at ? <time dateTime={j.completed_at}>{formatDateTime(j.completed_at)}</time> : <span className="muted">—</span>}
                    </td>
                    <td data-label="Cronologia">
                      <button
                        type="button"
                        className="btn btn-outline btn-sm"
                        aria-haspopup="dialog"
                        aria-label={`Cronologia ${j.original_filename}`}
                        onClick={() => setOpen((v) => (v === j.id ? null : j.id))}
                      >
                        Cronologia
                      </button>
                    </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pagination label="Pagine dei lavori" page={page} size={PAGE_SIZE} total={jobs.data.total} onPage={setPage} />
        </TableCard>
      )}

      {selected ? (
        <Dialog
          wide
          title={`Cronologia di ${selected.original_filename}`}
          description={`${selected.user_email} · ${jobTypeLabel(selected.job_type, config)} · ${statusText.label(selected.status)}`}
          onClose={() => setOpen(null)}
        >
          <JobTimelineView jobId={selected.id} name={selected.original_filename} />
          <div className="dialog-actions">
            <button type="button" className="btn btn-outline" onClick={() => setOpen(null)}>
              Chiudi
            </button>
          </div>
        </Dialog>
      ) : null}
    </div>
  );
}
