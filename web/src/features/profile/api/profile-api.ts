import { api } from '@/lib/api-client';
import type { Profile, ProfileInput } from '@/types/api';

/** `PATCH /api/me`: the name and the upload form's defaults. */
export const updateProfile = (input: ProfileInput) => api<Profile>('/api/me', { method: 'PATCH', json: input });
