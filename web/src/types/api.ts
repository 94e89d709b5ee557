/** Shapes of the FotoPronta HTTP API (DESIGN.md, "HTTP API"). */

export type UserRole = 'client' | 'graphic' | 'admin';

export interface SessionUser {
  id: string;
  email: string;
  [key: string]: unknown;
}

export interface Session {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  expires_at: number;
  user: SessionUser;
  /**
   * After a sign-up link opened in another browser than the sign-up: the address is confirmed but the
   * password given at sign-up was discarded (it may be someone else's); this one-time session only
   * sets a new password (`POST /api/auth/password/reset`).
   */
  password_required?: boolean;
}

export interface Profile {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  user_role: UserRole | string | null;
  credits_remaining: number;
  credits_expiry_date: string | null;
  is_active: boolean;
  /** Defaults for SEO file names, prefilled in the upload form. */
  default_brand?: string | null;
  default_category?: string | null;
  created_at: string;
  updated_at?: string;
}

export type JobStatus =
  | 'pending'
  | 'processing'
  | 'completed'
  | 'failed'
  | 'pending_human'
  | 'assigned_to_graphic'
  | 'in_progress_human'
  | 'completed_human'
  | 'rejected_human'
  | 'waiting_for_credits';

export type JobType = 'background_removal' | 'background_removal_human' | 'smart_backgrounds';

export interface ColorInfo {
  hex: string;
  name: string;
}

export interface ProcessingDetails {
  seo_filename?: string | null;
  brand?: string | null;
  category?: string | null;
  colors?: ColorInfo[] | null;
  /** 0–1, written by the retouch pipeline: how sure it is of the cut-out. */
  confidence?: number | null;
  /** The pipeline is unsure of the result: the card shows 'Da verificare' (issue 10). */
  needs_review?: boolean | null;
}

export interface PhotoJob {
  id: string;
  job_type: JobType | string;
  status: JobStatus | string;
  progress_percentage: number | null;
  error_message: string | null;
  processing_details: ProcessingDetails | null;
  created_at: string;
  completed_at: string | null;
}

export type PhotoStatus = 'uploaded' | 'processing' | 'processed';

export interface Photo {
  id: string;
  original_filename: string;
  file_size: number;
  file_format: string;
  status: PhotoStatus | string;
  created_at: string;
  processed_path: string | null;
  /** Set when retention (30 days after delivery) removed the files; the row stays. */
  files_deleted_at?: string | null;
  order_id?: string | null;
  jobs: PhotoJob[];
}

export type NotificationType = 'success' | 'warning' | 'error' | 'assignment' | 'info' | string;

export interface AppNotification {
  id: string;
  title: string;
  message: string;
  type: NotificationType;
  read: boolean;
  created_at: string;
  related_job_id: string | null;
}

export interface Order {
  id: string;
  package_type: string | null;
  total_photos: number | null;
  processed_photos: number | null;
  status: string;
  created_at: string;
  total_amount: number | null;
}

export interface CreditPurchase {
  id: string;
  package_id?: string | null;
  credits_purchased: number;
  amount_paid_cents: number;
  currency: string | null;
  status: string;
  created_at: string;
  credits_expiry_date?: string | null;
  /** The checkout session id to verify (named after the original schema). */
  stripe_payment_intent_id?: string | null;
  credit_packages?: { name: string; credits: number; price_cents: number } | null;
  package?: { name: string; credits: number; price_cents: number } | null;
}
