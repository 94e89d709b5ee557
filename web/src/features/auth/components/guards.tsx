import type { ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { FullPageSpinner } from '@/components/ui/spinner';
import { effectiveRole, homePath, useMe } from '@/lib/auth';
import { errorMessage } from '@/lib/api-client';
import { useSessionStore } from '@/stores/session';
import type { UserRole } from '@/types/api';
import { AccessDenied, type AccessDeniedVariant } from './access-denied';

function ProfileError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <div className="full-page-center">
      <div role="alert" className="card">
        <h1>Errore</h1>
        <p>{errorMessage(error)}</p>
        <button type="button" className="btn btn-primary" onClick={retry}>
          Riprova
        </button>
      </div>
    </div>
  );
}

/** Any signed-in user: spinner while loading, redirect to /auth (replace) without a user. */
export function RequireAuth({ children }: { children?: ReactNode }) {
  const session = useSessionStore((s) => s.session);
  const location = useLocation();
  const me = useMe();
  if (!session) return <Navigate to="/auth" replace state={{ from: location.pathname }} />;
  if (me.isPending) return <FullPageSpinner />;
  if (me.isError) return <ProfileError error={me.error} retry={() => void me.refetch()} />;
  return children ?? <Outlet />;
}

/**
 * Role guard (SPEC §2, §6): unauthorised when the profile is missing, inactive or has another role.
 * Must sit inside RequireAuth.
 */
export function RequireRole({ allow, variant, children }: { allow: UserRole[]; variant: AccessDeniedVariant; children?: ReactNode }) {
  const me = useMe();
  if (me.isPending) return <FullPageSpinner />;
  const profile = me.data;
  if (!profile || !profile.is_active || !allow.includes(effectiveRole(profile))) return <AccessDenied variant={variant} />;
  return children ?? <Outlet />;
}

/**
 * The seller's pages (/dashboard, /upload, /photos, /orders, /credits): clients and admins (SPEC §2: the
 * admin menu holds the client items), not designers, whose account has no seller credits or pages (the
 * server refuses their calls too). Must sit inside RequireAuth.
 */
export function RequireSeller({ children }: { children?: ReactNode }) {
  const me = useMe();
  if (me.isPending) return <FullPageSpinner />;
  if (effectiveRole(me.data) === 'graphic') return <AccessDenied variant="seller" />;
  return children ?? <Outlet />;
}

/** A signed-in user's home: /graphics-dashboard for designers, /dashboard for everyone else. */
export function SignedInRedirect() {
  const me = useMe();
  if (me.isPending) return <FullPageSpinner />;
  return <Navigate to={homePath(me.data)} replace />;
}

/** Public pages that a signed-in visitor should not see (e.g. /auth): go to their home page. */
export function RedirectIfSignedIn({ children }: { children: ReactNode }) {
  const session = useSessionStore((s) => s.session);
  if (session) return <SignedInRedirect />;
  return children;
}
