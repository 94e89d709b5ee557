import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Card, CardHeader } from '@/components/ui/card';
import { Progress } from '@/components/ui/progress';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/components/ui/toast';
import { errorMessage, errorTitle } from '@/lib/api-client';
import { formatBytes, relativeTime } from '@/lib/format';
import { ADMIN_KEY, assignJob, useDesigners, usePendingPool } from '../api/admin-api';
import { personName, sortJobs } from '../lib/jobs';
import type { DesignerJob, DesignerLoad } from '../api/types';
import { DASHBOARD_LOAD_ERROR } from './admin-overview-tab';
import { JobTimelineView } from './job-timeline';
import { Deadline, PriorityBadge } from './priority-badge';

const ASSIGN_ERROR = "Errore nell'assegnazione del lavoro";

/** Designers a job may go to: active and below their capacity (SPEC §6, §9). */
export function availableDesigners(designers: DesignerLoad[]): DesignerLoad[] {
  return designers.filter((d) => d.is_active && !d.is_full && d.active_jobs < d.max_concurrent_jobs);
}

function PoolJob({ job, designers }: { job: DesignerJob; designers: DesignerLoad[] }) {
  const queryClient = useQueryClient();
  const [designerId, setDesignerId] = useState('');
  const [showHistory, setShowHistory] = useState(false);
  const choosable = availableDesigners(designers);
  const selectId = `designer-for-${job.id}`;
  const historyId = `history-${job.id}`;

  const assign = useMutation({
    mutationFn: () => assignJob(job.id, designerId),
    onSuccess: () => {
      const d = designers.find((x) => x.id === designerId);
      toast({ title: 'Lavoro assegnato', description: `${job.original_filename} → ${d ? personName(d) : 'grafico'}` });
      setDesignerId('');
    },
    onError: (error) => toast({ title: errorTitle(error, ASSIGN_ERROR), description: errorMessage(error), variant: 'destructive' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ADMIN_KEY }),
  });

  return (
    <li className="card job-card" aria-label={job.original_filename}>
      <div className="job-card-head">
        <h3 className="job-title" title={job.original_filename}>
          {job.original_filename}
        </h3>
        <PriorityBadge priority={job.priority} />
      </div>
      <p className="muted job-sub">
        Ricevuto <time dateTime={job.created_at}>{relativeTime(job.created_at)}</time> · {formatBytes(job.file_size)}
      </p>
      <Deadline job={job} />
      {job.client_notes ? (
        <p className="job-notes">
          <strong>Note del cliente:</strong> {job.client_notes}
        </p>
      ) : null}
      <div className="job-actions assign-row">
        <label htmlFor={selectId} className="sr-only">
          Grafico per {job.original_filename}
        </label>
        <select id={selectId} className="input" value={designerId} onChange={(e) => setDesignerId(e.target.value)} disabled={choosable.length === 0}>
          <option value="">{choosable.length === 0 ? 'Nessun grafico disponibile' : 'Scegli un grafico'}</option>
          {choosable.map((d) => (
            <option key={d.id} value={d.id}>
              {personName(d)} ({d.active_jobs}/{d.max_concurrent_jobs})
            </option>
          ))}
        </select>
        <button type="button" className="btn btn-primary btn-sm" disabled={!designerId || assign.isPending} onClick={() => assign.mutate()}>
          Assegna
        </button>
        <button type="button" className="btn btn-outline btn-sm" aria-expanded={showHistory} aria-controls={historyId} onClick={() => setShowHistory((v) => !v)}>
          Storico
        </button>
      </div>
      <div id={historyId}>{showHistory ? <JobTimelineView jobId={job.id} name={job.original_filename} /> : null}</div>
    </li>
  );
}

/** Team tab: designers' load and the pending human pool with assignment. */
export function AdminTeamTab() {
  const designers = useDesigners();
  const pool = usePendingPool();
  const list = designers.data ?? [];
  const jobs = sortJobs(pool.data ?? []);

  return (
    <div className="team-grid">
      <Card>
        <CardHeader title="Grafici" description="Lavori attivi rispetto alla capacità massima" />
        {designers.isPending ? (
          <Spinner label="Caricamento grafici..." />
        ) : designers.isError ? (
          <p className="form-error" role="alert">
            {DASHBOARD_LOAD_ERROR}: {errorMessage(designers.error)}
          </p>
        ) : list.length === 0 ? (
          <p className="muted">Nessun grafico registrato.</p>
        ) : (
          <ul className="designer-list" aria-label="Carico dei grafici">
            {list.map((d) => (
              <li key={d.id} aria-label={personName(d)}>
                <div className="designer-row">
                  <span>
                    <strong>
                      <bdi className="user-text">{personName(d)}</bdi>
                    </strong>
                    {/* an unnamed designer is shown by the e-mail already */}
                    {personName(d) !== d.email ? <span className="muted designer-email"> {d.email}</span> : null}
                  </span>
                  <span className="job-badges">
                    {!d.is_active ? <Badge tone="neutral">Non attivo</Badge> : null}
                    {d.is_full ? <Badge tone="danger">Al completo</Badge> : null}
                    <span>
                      {d.active_jobs}/{d.max_concurrent_jobs}
                    </span>
                  </span>
                </div>
                <Progress value={d.max_concurrent_jobs > 0 ? (d.active_jobs / d.max_concurrent_jobs) * 100 : 100} label={`Carico di ${personName(d)}`} />
                <p className="field-hint">{d.completed_jobs} {d.completed_jobs === 1 ? 'lavoro completato' : 'lavori completati'}</p>
              </li>
            ))}
          </ul>
        )}
      </Card>

      <Card>
        <CardHeader title="Lavori da assegnare" description="In coda per grafici, per priorità e anzianità" />
        {pool.isPending ? (
          <Spinner label="Caricamento lavori..." />
        ) : pool.isError ? (
          <p className="form-error" role="alert">
            {DASHBOARD_LOAD_ERROR}: {errorMessage(pool.error)}
          </p>
        ) : jobs.length === 0 ? (
          <p className="muted">Nessun lavoro in attesa.</p>
        ) : (
          <ul className="job-list" aria-label="Lavori da assegnare">
            {jobs.map((job) => (
              <PoolJob key={job.id} job={job} designers={list} />
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
