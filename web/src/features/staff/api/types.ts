/** Shapes of the staff endpoints (api/routes/designer.py, admin_*.py): aliases of the generated schema. */
import type { components } from '@/types/openapi.gen';

type Schemas = components['schemas'];

/** A human job with the photo facts a designer needs (`DesignerJob` on the server). */
export type DesignerJob = Schemas['DesignerJob'];

/** `GET /api/admin/overview`; `jobs_needing_review`: AI results flagged `needs_review` by the retouch
 * pipeline, delivered in the last `needs_review_window_days` days. */
export type AdminOverview = Schemas['AdminOverview'];

/** `GET /api/admin/designers`: one designer and their load (SPEC §9 Designer capacity). */
export type DesignerLoad = Schemas['DesignerLoad'];

/** `GET /api/admin/users`: a profile as the admin sees it. */
export type AdminUserRow = Schemas['ProfilePublic'];

/** `POST /api/admin/users/{id}/credits`. */
export type AddCreditsResult = Schemas['AddCreditsOut'];

/** `POST /api/admin/users/assign-missing-free-credits`. */
export type AssignMissingResult = Schemas['AssignMissingOut'];

/** `GET /api/admin/jobs?page=…`: one job of the admin's job search, and a page of them. */
export type AdminJob = Schemas['AdminJob'];
export type AdminJobPage = Schemas['AdminJobPage'];

/** `GET /api/admin/users?page=…`. */
export type UserPage = Schemas['UserPage'];

/** `GET /api/admin/jobs/{id}/timeline`: one Italian step, and the whole timeline. */
export type TimelineStep = Schemas['TimelineStep'];
export type JobTimeline = Schemas['JobTimeline'];

/** Outcome of a timeline step (api/job_timeline.py `Outcome`). */
export type StepOutcome = TimelineStep['outcome'];

export type { SortOrder } from '@/types/api';
