/** Shapes of the staff endpoints (api/routes/designer.py, admin_*.py). */
import type { Profile } from '@/types/api';

/** A human job with the photo facts a designer needs (`DesignerJob` on the server). */
export interface DesignerJob {
  id: string;
  photo_id: string;
  user_id: string;
  job_type: string;
  status: string;
  priority: number;
  deadline: string | null;
  overdue: boolean;
  assigned_to: string | null;
  client_notes: string | null;
  graphic_notes: string | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  original_filename: string;
  file_size: number;
  file_format: string;
  width: number | null;
  height: number | null;
}

/** `GET /api/admin/overview`. */
export interface AdminOverview {
  users_total: number;
  users_without_credits: number;
  photos_total: number;
  jobs_by_status: Record<string, number>;
  pending_human_unassigned: number;
  credits_sold: number;
  credits_granted: number;
  revenue_cents: number;
  /** AI results flagged `needs_review` by the retouch pipeline, delivered in the last `needs_review_window_days` days. */
  jobs_needing_review: number;
  needs_review_window_days: number;
  currency: string;
}

/** `GET /api/admin/designers`: one designer and their load (SPEC §9 Designer capacity). */
export interface DesignerLoad {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string;
  is_active: boolean;
  max_concurrent_jobs: number;
  active_jobs: number;
  completed_jobs: number;
  is_full: boolean;
  specializations: string[] | null;
}

/** `GET /api/admin/jobs/{id}/history`: one workflow event. */
export interface HistoryEvent {
  event_id: number;
  type: string;
  time: string;
  activity_type?: string | null;
  update_name?: string | null;
  signal_name?: string | null;
  failure_message?: string | null;
  attempt?: number | null;
}

/** `GET /api/admin/users`: a profile as the admin sees it. */
export interface AdminUserRow extends Profile {
  max_concurrent_jobs?: number;
  specializations?: string[] | null;
}

export interface AddCreditsResult {
  purchase_id: string;
  credits_added: number;
  profile: AdminUserRow;
}

export interface AssignMissingResult {
  assigned: number;
  user_ids: string[];
}

/** `GET /api/admin/jobs?page=…`: one job of the admin's job search. */
export interface AdminJob {
  id: string;
  photo_id: string;
  user_id: string;
  user_email: string;
  original_filename: string;
  job_type: string;
  status: string;
  error_message: string | null;
  priority: number;
  overdue: boolean;
  deadline: string | null;
  assigned_to: string | null;
  assigned_to_email: string | null;
  created_at: string;
  completed_at: string | null;
}

/** A server-side page of rows. */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  size: number;
}

export type SortOrder = 'asc' | 'desc';

/** Outcome of a timeline step (api/job_timeline.py). */
export type StepOutcome = 'ok' | 'failed' | 'retry' | 'running' | 'waiting' | 'scheduled' | 'cancelled';

/** `GET /api/admin/jobs/{id}/timeline`: one Italian step. */
export interface TimelineStep {
  kind: string;
  label: string;
  detail: string | null;
  outcome: StepOutcome;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  attempt: number | null;
  max_attempts: number | null;
}

/** `GET /api/admin/jobs/{id}/timeline`. */
export interface JobTimeline {
  job_id: string;
  workflow_id: string;
  run_id: string | null;
  workflow_status: string | null;
  temporal_url: string;
  retries: number;
  failures: number;
  steps: TimelineStep[];
}
