import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import { LoadErrorCard } from '@/components/ui/load-error-card';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/components/ui/toast';
import { errorMessage, errorTitle } from '@/lib/api-client';
import { effectiveRole, roleLabel, useMe } from '@/lib/auth';
import { saveBlob } from '@/lib/download';
import { useJobStatusText } from '@/lib/photos';
import { assignToMe, DESIGNER_HISTORY_KEY, DESIGNER_JOBS_KEY, fetchOriginal, startJob, useDesignerHistory, useDesignerJobs } from '../api/designer-api';
import { CompleteDialog } from '../components/complete-dialog';
import { CompletedJobRow, DesignerJobCard } from '../components/designer-job-card';
import { RejectDialog } from '../components/reject-dialog';
import { jobCounters, personName, sortJobs } from '../lib/jobs';
import type { DesignerJob } from '../api/types';

type Filter = 'all' | 'pending_human' | 'assigned_to_graphic' | 'in_progress_human';
const FILTERS: Filter[] = ['all', 'pending_human', 'assigned_to_graphic', 'in_progress_human'];

/** A one-click job step (assign to me, start): toast, then refetch the queue either way. */
function useJobStep(fn: (id: string) => Promise<unknown>, done: string, failTitle: string, setBusyId: (id: string | null) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onMutate: (id) => setBusyId(id),
    onSuccess: () => toast({ title: done }),
    onError: (error) => toast({ title: errorTitle(error, failTitle), description: errorMessage(error), variant: 'destructive' }),
    onSettled: () => {
      setBusyId(null);
      return queryClient.invalidateQueries({ queryKey: DESIGNER_JOBS_KEY });
    },
  });
}

type View = 'queue' | 'completed';

type Open = { kind: 'complete' | 'reject'; job: DesignerJob } | null;

/** /graphics-dashboard 'Bacheca lavori' (SPEC §2, §4 Human workflow, §6 Designer). */
export function GraphicsDashboardPage() {
  const me = useMe();
  const statusText = useJobStatusText();
  const filterLabel = (f: Filter) => (f === 'all' ? 'Tutti' : statusText.label(f));
  const jobs = useDesignerJobs();
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState<Filter>('all');
  const [view, setView] = useState<View>('queue');
  const history = useDesignerHistory(view === 'completed');
  const [open, setOpen] = useState<Open>(null);
  const [busyId, setBusyId] = useState<string | null>(null);

  const all = useMemo(() => sortJobs(jobs.data ?? []), [jobs.data]);
  const counters = jobCounters(all);
  const visible = filter === 'all' ? all : all.filter((j) => j.status === filter);

  // One toast when loading starts failing (the query keeps polling meanwhile).
  useEffect(() => {
    if (jobs.isError) toast({ title: 'Impossibile caricare i lavori', description: errorMessage(jobs.error), variant: 'destructive' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once when failing starts, not again for each failed poll's error
  }, [jobs.isError]);

  const refresh = () =>
    Promise.all([queryClient.invalidateQueries({ queryKey: DESIGNER_JOBS_KEY }), queryClient.invalidateQueries({ queryKey: DESIGNER_HISTORY_KEY })]);

  const assign = useJobStep(assignToMe, 'Lavoro assegnato', 'Impossibile assegnare il lavoro', setBusyId);
  const start = useJobStep(startJob, 'Lavoro iniziato', 'Impossibile iniziare il lavoro', setBusyId);

  const downloadOriginal = async (job: DesignerJob) => {
    setBusyId(job.id);
    try {
      saveBlob(await fetchOriginal(job.id), job.original_filename);
    } catch (error) {
      toast({ title: errorTitle(error, 'Foto non trovata'), description: errorMessage(error), variant: 'destructive' });
    } finally {
      setBusyId(null);
    }
  };

  const closeAndRefresh = () => {
    setOpen(null);
    void refresh();
  };

  const profile = me.data;
  const role = effectiveRole(profile);

  return (
    <div className="page">
      <header className="page-header">
        <h1>Bacheca lavori</h1>
        {profile ? (
          <p className="muted designer-info">
            <span>{personName(profile)}</span> <Badge tone="brand">{roleLabel(role)}</Badge>
          </p>
        ) : null}
      </header>

      <section className="stat-grid three designer-stats" aria-label="Riepilogo lavori">
        <Card className="stat-card">
          <p className="stat-label">Totale</p>
          <p className="stat-value">{counters.total}</p>
        </Card>
        <Card className="stat-card">
          <p className="stat-label">In lavorazione</p>
          <p className="stat-value">{counters.inProgress}</p>
        </Card>
        <Card className="stat-card">
          <p className="stat-label">Assegnati</p>
          <p className="stat-value">{counters.assigned}</p>
        </Card>
      </section>

      <div role="tablist" aria-label="Lavori da fare o completati" className="tabs designer-tabs">
        {(
          [
            ['queue', 'Da fare'],
            ['completed', 'Completati'],
          ] as const
        ).map(([id, label]) => (
          <button key={id} type="button" role="tab" id={`designer-tab-${id}`} aria-selected={view === id} aria-controls={`designer-panel-${id}`} className={`tab ${view === id ? 'tab-active' : ''}`} onClick={() => setView(id)}>
            {label}
          </button>
        ))}
      </div>

      {view === 'completed' ? (
        <div role="tabpanel" id="designer-panel-completed" aria-labelledby="designer-tab-completed">
          {history.isPending ? (
            <Spinner label="Caricamento lavori completati..." />
          ) : history.isError ? (
            <LoadErrorCard title="Impossibile caricare i lavori completati" error={history.error} onRetry={() => void history.refetch()} />
          ) : history.data.length === 0 ? (
            <Card className="empty-state">
              <h2>Nessun lavoro completato</h2>
              <p>I lavori che consegni compaiono qui.</p>
            </Card>
          ) : (
            <ul className="job-list" aria-label="Lavori completati">
              {history.data.map((job) => (
                <CompletedJobRow key={job.id} job={job} />
              ))}
            </ul>
          )}
        </div>
      ) : (
        <div role="tabpanel" id="designer-panel-queue" aria-labelledby="designer-tab-queue" className="designer-queue">
          <Card className="photos-toolbar">
            <div className="field">
              <label htmlFor="job-filter">Stato</label>
              <select id="job-filter" className="input" value={filter} onChange={(e) => setFilter(e.target.value as Filter)}>
                {FILTERS.map((f) => (
                  <option key={f} value={f}>
                    {filterLabel(f)}
                  </option>
                ))}
              </select>
            </div>
            <button type="button" className="btn btn-outline" onClick={() => void jobs.refetch()} disabled={jobs.isFetching}>
              Aggiorna
            </button>
          </Card>

          {jobs.isPending ? (
            <Spinner label="Caricamento lavori..." />
          ) : jobs.isError && !jobs.data ? (
            <LoadErrorCard title={'Impossibile caricare i lavori'} error={jobs.error} onRetry={() => void jobs.refetch()} />
          ) : visible.length === 0 ? (
            <Card className="empty-state">
              <h2>Nessun lavoro</h2>
              <p>{filter === 'all' ? 'Non ci sono lavori in coda: torna più tardi.' : 'Nessun lavoro in questo stato.'}</p>
            </Card>
          ) : (
            <ul className="job-list" aria-label="Lavori">
              {visible.map((job) => (
                <DesignerJobCard
                  key={job.id}
                  job={job}
                  meId={profile?.id}
                  busy={busyId === job.id}
                  onAssign={() => assign.mutate(job.id)}
                  onStart={() => start.mutate(job.id)}
                  onComplete={() => setOpen({ kind: 'complete', job })}
                  onReject={() => setOpen({ kind: 'reject', job })}
                  onDownloadOriginal={() => void downloadOriginal(job)}
                />
              ))}
            </ul>
          )}
        </div>
      )}

      {open?.kind === 'complete' ? <CompleteDialog job={open.job} onClose={() => setOpen(null)} onDone={closeAndRefresh} /> : null}
      {open?.kind === 'reject' ? <RejectDialog job={open.job} onClose={() => setOpen(null)} onDone={closeAndRefresh} /> : null}
    </div>
  );
}
