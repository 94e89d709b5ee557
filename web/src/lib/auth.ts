import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { useSessionStore } from '@/stores/session';
import type { LoginInput, Profile, Session, UserRole } from '@/types/api';

export const ME_QUERY_KEY = ['me'] as const;

export const getMe = () => api<Profile>('/api/me');

/** The signed-in user's profile (`GET /api/me`); disabled without a session. */
export function useMe() {
  const token = useSessionStore((s) => s.session?.access_token ?? null);
  return useQuery({ queryKey: [...ME_QUERY_KEY, token], queryFn: getMe, enabled: token !== null });
}

export function useInvalidateMe() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: ME_QUERY_KEY });
}

/**
 * The role the UI acts on (SPEC §6): unknown or missing roles count as client, and so does a
 * non-client whose account is inactive.
 */
export function effectiveRole(profile: Pick<Profile, 'user_role' | 'is_active'> | null | undefined): UserRole {
  const role = profile?.user_role;
  if (role !== 'admin' && role !== 'graphic') return 'client';
  if (profile && profile.is_active === false) return 'client';
  return role;
}

export const ROLE_LABELS: Record<UserRole, string> = { client: 'Cliente', admin: 'Admin', graphic: 'Grafico' };

export function roleLabel(role: string | null | undefined): string {
  return role === 'admin' || role === 'graphic' ? ROLE_LABELS[role] : ROLE_LABELS.client;
}

/** Where a user lands after signing in: designers on /graphics-dashboard, everyone else on /dashboard. */
export function homePath(profile: Pick<Profile, 'user_role' | 'is_active'> | null | undefined): string {
  return effectiveRole(profile) === 'graphic' ? '/graphics-dashboard' : '/dashboard';
}

export const login = (input: LoginInput) => api<Session>('/api/auth/login', { method: 'POST', json: input, anonymous: true });

/** Revokes the refresh token (best effort) and forgets the session locally. */
export async function logout(): Promise<void> {
  const { session, clearSession } = useSessionStore.getState();
  try {
    if (session) await api('/api/auth/logout', { method: 'POST', json: { refresh_token: session.refresh_token } });
  } catch {
    /* the local session is cleared anyway */
  } finally {
    clearSession();
  }
}
