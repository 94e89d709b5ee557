import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router-dom';
import { FullPageSpinner } from '@/components/ui/spinner';
import { toast } from '@/components/ui/toast';
import { ApiError } from '@/lib/api-client';
import { useSessionStore } from '@/stores/session';
import { verifyLink } from '../api/auth-api';

/** Reads a value from the query, or from the hash when the link carries it there. */
function readParam(name: string): string | null {
  const fromQuery = new URLSearchParams(window.location.search).get(name);
  if (fromQuery) return fromQuery;
  return new URLSearchParams(window.location.hash.replace(/^#/, '')).get(name);
}

/**
 * `/auth/callback?token_hash=…&type=signup|recovery` from an e-mailed link. A sign-up link opened in
 * another browser than the sign-up answers `password_required`: `/auth?type=recovery&from=signup` then
 * says the address is confirmed and asks for the code shown after sign-up, or a new password.
 */
export function AuthCallbackPage() {
  const navigate = useNavigate();
  const setSession = useSessionStore((s) => s.setSession);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const tokenHash = readParam('token_hash');
    const type = readParam('type');
    if (!tokenHash || !type) {
      toast({ title: 'Link non valido', description: 'Il link non è valido o è scaduto', variant: 'destructive' });
      navigate('/auth', { replace: true });
      return;
    }
    verifyLink({ token_hash: tokenHash, type })
      .then((session) => {
        setSession(session);
        if (type === 'recovery') {
          navigate('/auth?type=recovery', { replace: true });
        } else if (session.password_required) {
          // Opened in another browser than the sign-up: the page explains it and offers the sign-up's
          // pairing code or a new password (a password chosen by whoever signed up this address must
          // not work unasked: account pre-hijacking).
          navigate('/auth?type=recovery&from=signup', { replace: true });
        } else {
          toast({ title: 'Accesso effettuato', description: 'Email confermata: benvenuto in FotoPronta' });
          navigate('/dashboard', { replace: true });
        }
      })
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status > 0) {
          toast({ title: 'Errore verifica', description: error.detail || 'Link non valido o scaduto', variant: 'destructive' });
        } else {
          toast({ title: 'Errore', description: 'Si è verificato un errore imprevisto. Riprova.', variant: 'destructive' });
        }
        navigate('/auth', { replace: true });
      });
  }, [navigate, setSession]);

  return <FullPageSpinner label="Verifica in corso..." />;
}
