import { api } from '@/lib/api-client';
import type { JobType, UploadBatchResult } from '@/types/api';

export interface UploadInput {
  files: File[];
  jobType: JobType;
  backgroundCategory?: string;
  preset?: string;
  brand?: string;
  category?: string;
  clientNotes?: string;
}

/** `POST /api/photos/batch` multipart: one `files` part per file plus `job_type` and the options → the
 * created photos (in order) and the files the server refused by their content, each with its reason
 * (`index` is the file's position in `files`). */
export function uploadPhotos({ files, jobType, backgroundCategory, preset, brand, category, clientNotes }: UploadInput): Promise<UploadBatchResult> {
  const form = new FormData();
  for (const f of files) form.append('files', f, f.name);
  form.append('job_type', jobType);
  if (jobType === 'smart_backgrounds' && backgroundCategory) form.append('background_category', backgroundCategory);
  if (preset) form.append('preset', preset);
  if (brand?.trim()) form.append('brand', brand.trim());
  if (category?.trim()) form.append('category', category.trim());
  if (jobType === 'background_removal_human' && clientNotes?.trim()) form.append('client_notes', clientNotes.trim());
  return api<UploadBatchResult>('/api/photos/batch', { method: 'POST', body: form });
}
