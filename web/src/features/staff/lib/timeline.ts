import { formatDate } from '@/lib/format';
import type { AppConfig } from '@/types/api';
import type { JobTimeline, StepOutcome } from '../api/types';

/** "850 ms", "4,2 s", "3 min 5 s", "2 h 10 min", "30 g 2 h". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1).replace('.', ',')} s`;
  const totalMin = Math.floor(s / 60);
  if (totalMin < 60) return `${totalMin} min ${Math.round(s % 60)} s`;
  const totalH = Math.floor(totalMin / 60);
  if (totalH < 24) return `${totalH} h ${totalMin % 60} min`;
  return `${Math.floor(totalH / 24)} g ${totalH % 24} h`;
}

export const OUTCOME_LABELS: Record<StepOutcome, string> = {
  ok: 'Riuscito',
  failed: 'Fallito',
  retry: 'Ritentato',
  running: 'In corso',
  waiting: 'In attesa',
  scheduled: 'Programmato',
  cancelled: 'Annullato',
};

export const OUTCOME_TONES: Record<StepOutcome, 'success' | 'danger' | 'warning' | 'info' | 'neutral'> = {
  ok: 'success',
  failed: 'danger',
  retry: 'warning',
  running: 'info',
  waiting: 'neutral',
  scheduled: 'neutral',
  cancelled: 'neutral',
};

const WORKFLOW_STATUS: Record<string, string> = {
  RUNNING: 'Flusso in corso',
  COMPLETED: 'Flusso concluso',
  FAILED: 'Flusso fallito',
  CANCELED: 'Flusso annullato',
  TERMINATED: 'Flusso terminato',
  CONTINUED_AS_NEW: 'Flusso proseguito',
  TIMED_OUT: 'Flusso scaduto',
};

/** Temporal's execution status in Italian ('RUNNING' → 'Flusso in corso'). */
export function workflowStatusLabel(status: string | null | undefined): string {
  return (status && WORKFLOW_STATUS[status]) || 'Stato sconosciuto';
}

/**
 * What the timeline's summary says: once the job ended and its workflow only waits to delete the files
 * (`files_kept_until`), 'Consegnato — file conservati fino al 26 dicembre 2026' (or 'Rifiutato — …'); else
 * the workflow's status ('Flusso in corso', 'Flusso concluso'…).
 */
export function timelineSummaryLabel(t: Pick<JobTimeline, 'workflow_status' | 'job_status' | 'files_kept_until'>): string {
  if (t.workflow_status === 'RUNNING' && t.files_kept_until) {
    const outcome = t.job_status === 'rejected_human' ? 'Rifiutato' : 'Consegnato';
    return `${outcome} — file conservati fino al ${formatDate(t.files_kept_until)}`;
  }
  return workflowStatusLabel(t.workflow_status);
}

/** The Italian name of a job type from the server's `job_type_labels` ('background_removal_human' → 'Ritocco del
 * team grafico'); the raw type while the config loads or for an unknown one. */
export function jobTypeLabel(type: string, config: Pick<AppConfig, 'job_type_labels'> | undefined): string {
  return config?.job_type_labels[type] ?? type;
}
