import { api } from '@/lib/api-client';
import type { JobType, Photo } from '@/types/api';

export const SMART_BACKGROUND_CATEGORIES = [
  { value: 'minimal_studio', label: 'Studio minimal' },
  { value: 'home_lifestyle', label: 'Casa e lifestyle' },
  { value: 'outdoor_natural', label: 'Esterni naturali' },
  { value: 'professional_office', label: 'Ufficio professionale' },
  { value: 'seasonal_themed', label: 'Stagionale a tema' },
] as const;

export interface UploadInput {
  files: File[];
  jobType: Extract<JobType, 'background_removal' | 'smart_backgrounds'>;
  backgroundCategory?: string;
}

/** `POST /api/photos` multipart: one `files` part per file plus `job_type` → the created photos, in order. */
export function uploadPhotos({ files, jobType, backgroundCategory }: UploadInput): Promise<Photo[]> {
  const form = new FormData();
  for (const f of files) form.append('files', f, f.name);
  form.append('job_type', jobType);
  if (jobType === 'smart_backgrounds' && backgroundCategory) form.append('background_category', backgroundCategory);
  return api<Photo[]>('/api/photos', { method: 'POST', body: form });
}
