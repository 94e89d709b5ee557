import { api } from '@/lib/api-client';
import type { VerifyResult } from '@/types/api';

/** `POST /api/payments/verify`: asks the provider whether a checkout session was paid (from /credits and
 * from the return to /dashboard). */
export const verifyPayment = (sessionId: string) =>
  api<VerifyResult>('/api/payments/verify', { method: 'POST', json: { session_id: sessionId } });
