import { api } from '@/lib/api-client';
import type { MessageResult, Session, SignupInput, SignupResult, VerifyOtpInput } from '@/types/api';

/** `POST /api/auth/signup` → 201 (the account must be confirmed from the e-mailed link). */
export const signup = (input: SignupInput) => api<SignupResult>('/api/auth/signup', { method: 'POST', json: input, anonymous: true });

/** `POST /api/auth/verify` with the e-mailed link's token → a session like login. */
export const verifyLink = (input: { token_hash: string; type: string }) =>
  api<Session>('/api/auth/verify', { method: 'POST', json: input, anonymous: true });

/** `POST /api/auth/password/forgot` → sends a 6-digit code (and a reset link) by e-mail. */
export const forgotPassword = (email: string) =>
  api<MessageResult>('/api/auth/password/forgot', { method: 'POST', json: { email }, anonymous: true });

/** `POST /api/auth/password/verify-otp` → sets the new password when the code is right. */
export const verifyOtp = (input: VerifyOtpInput) =>
  api<MessageResult>('/api/auth/password/verify-otp', { method: 'POST', json: input, anonymous: true });

/** `POST /api/auth/password/reset` for a signed-in recovery session (reached from the e-mailed link). */
export const resetPassword = (password: string) => api<MessageResult>('/api/auth/password/reset', { method: 'POST', json: { password } });

/** `POST /api/auth/signup/pair` with the one-time session of a sign-up link opened in another browser:
 * the 6-digit code shown after sign-up → an ordinary session; the sign-up password then works everywhere. */
export const pairSignup = (code: string) => api<Session>('/api/auth/signup/pair', { method: 'POST', json: { code } });
