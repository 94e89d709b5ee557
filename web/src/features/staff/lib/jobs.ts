import { formatDistance, isValid, parseISO } from 'date-fns';
import { it } from 'date-fns/locale';
import type { BadgeTone } from '@/components/ui/badge';
import type { DesignerJob } from '../api/types';

/** Priority badge colour (SPEC §9): 4 or more red, 2 or more amber, else green. */
export function priorityTone(priority: number): BadgeTone {
  if (priority >= 4) return 'danger';
  if (priority >= 2) return 'warning';
  return 'success';
}

/** Highest priority first, then oldest first (the order the server also uses). */
export function sortJobs<T extends Pick<DesignerJob, 'priority' | 'created_at'>>(jobs: T[]): T[] {
  return [...jobs].sort((a, b) => b.priority - a.priority || a.created_at.localeCompare(b.created_at));
}

export interface DeadlineInfo {
  /** "tra 2 giorni" / "3 ore fa". */
  relative: string;
  overdue: boolean;
}

const FINISHED = new Set(['completed_human', 'rejected_human']);

/**
 * The deadline as Italian relative time and whether the job is late: the server's `overdue` flag
 * (set when the 72-hour timer escalated the job) or a past deadline on an unfinished job.
 */
export function deadlineInfo(job: Pick<DesignerJob, 'deadline' | 'overdue' | 'status'>, now: Date = new Date()): DeadlineInfo | null {
  const late = job.overdue === true;
  if (!job.deadline) return late ? { relative: '', overdue: true } : null;
  const d = parseISO(job.deadline);
  if (!isValid(d)) return late ? { relative: '', overdue: true } : null;
  return {
    relative: formatDistance(d, now, { addSuffix: true, locale: it }),
    overdue: late || (d.getTime() < now.getTime() && !FINISHED.has(job.status)),
  };
}

/** Designer counters: every listed job, those in progress, those assigned (not yet started). */
export function jobCounters(jobs: Pick<DesignerJob, 'status'>[]) {
  return {
    total: jobs.length,
    inProgress: jobs.filter((j) => j.status === 'in_progress_human').length,
    assigned: jobs.filter((j) => j.status === 'assigned_to_graphic').length,
  };
}

export type JobAction = 'assign' | 'start' | 'work' | 'other';

/**
 * What the signed-in designer may do with a job (SPEC §6 Designer): take an unassigned pending job,
 * start their own assigned job, complete or reject their own in-progress job. Jobs of other
 * designers (an admin sees them all) are read-only.
 */
export function jobAction(job: Pick<DesignerJob, 'status' | 'assigned_to'>, meId: string | undefined): JobAction {
  if (job.status === 'pending_human' && !job.assigned_to) return 'assign';
  if (!meId || job.assigned_to !== meId) return 'other';
  if (job.status === 'assigned_to_graphic') return 'start';
  if (job.status === 'in_progress_human') return 'work';
  return 'other';
}

/** SPEC §5 Designer result upload. */
export const RESULT_TYPES = ['image/jpeg', 'image/jpg', 'image/png', 'image/webp'] as const;
export const RESULT_MAX_BYTES = 10485760;

export interface FileIssue {
  title: string;
  description: string;
}

/** Checks a designer's result file (SPEC §5); null when it may be uploaded. */
export function checkResultFile(file: Pick<File, 'type' | 'size'>): FileIssue | null {
  if (!(RESULT_TYPES as readonly string[]).includes(file.type.toLowerCase())) {
    return { title: 'Formato non supportato', description: 'Sono ammessi solo file JPG, PNG e WebP' };
  }
  if (file.size > RESULT_MAX_BYTES) {
    return { title: 'File troppo grande', description: 'Il file deve essere inferiore a 10MB' };
  }
  return null;
}

/** Admin add credits (SPEC §5): an integer, at least 1. */
export function parseCreditAmount(value: string): number | null {
  const trimmed = value.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const n = Number(trimmed);
  return Number.isSafeInteger(n) && n >= 1 ? n : null;
}

/** "Mario Rossi", else the e-mail. */
export function personName(p: { first_name?: string | null; last_name?: string | null; email?: string | null }): string {
  const name = [p.first_name, p.last_name].filter((s) => s && s.trim()).join(' ').trim();
  return name || p.email || '';
}
