import { api } from '@/lib/api-client';
import type { MessageResult, Profile, ProfileInput } from '@/types/api';

/** `PATCH /api/me`: the name and the upload form's defaults. */
export const updateProfile = (input: ProfileInput) => api<Profile>('/api/me', { method: 'PATCH', json: input });

/** `POST /api/auth/password/change`: needs the current password; the server keeps this session and
 * signs every other one out. */
export const changePassword = (currentPassword: string, newPassword: string) =>
  api<MessageResult>('/api/auth/password/change', { method: 'POST', json: { current_password: currentPassword, new_password: newPassword } });
