import { api } from '@/lib/api-client';
import type { JobType, UploadBatchResult } from '@/types/api';

export const SMART_BACKGROUND_CATEGORIES = [
  { value: 'minimal_studio', label: 'Studio minimal' },
  { value: 'home_lifestyle', label: 'Casa e lifestyle' },
  { value: 'outdoor_natural', label: 'Esterni naturali' },
  { value: 'professional_office', label: 'Ufficio professionale' },
  { value: 'seasonal_themed', label: 'Stagionale a tema' },
] as const;

/** Output formats of the retouch pipeline (server `retouch.PRESETS`). */
export const OUTPUT_PRESETS = [
  { value: 'original', label: 'Dimensioni originali' },
  { value: 'amazon', label: 'Amazon – 2000×2000, prodotto all’85%' },
  { value: 'zalando', label: 'Zalando – 1801×2600' },
  { value: 'etsy', label: 'Etsy – lato lungo 2000 px' },
  { value: 'shopify', label: 'Shopify – 2048×2048' },
] as const;

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
