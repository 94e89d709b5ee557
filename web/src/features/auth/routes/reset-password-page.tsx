import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { PasswordField } from '@/components/ui/field';
import { toast } from '@/components/ui/toast';
import { errorMessage } from '@/lib/api-client';
import { useSessionStore } from '@/stores/session';
import { resetPassword, verifyLink } from '../api/auth-api';
import { AuthShell } from '../components/auth-shell';
import { validateResetForm } from '../lib/validation';

function readParams() {
  const q = new URLSearchParams(window.location.search);
  const h = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const get = (k: string) => q.get(k) ?? h.get(k);
  return { tokenHash: get('token_hash'), error: get('error'), errorCode: get('error_code') };
}

/** The Italian message for a link that came back with an error (SPEC §8 'Reset link'): the link's own
 * `error_description` is the identity provider's English and is never shown. */
function resetLinkError(errorCode: string | null): string {
  return errorCode === 'otp_expired'
    ? 'Il link per il reset della password è scaduto. Richiedi un nuovo link.'
    : 'Il link per il reset della password non è valido. Richiedi un nuovo link.';
}

/** `/reset-password?token_hash=…` from the e-mailed link: new password + confirmation. */
export function ResetPasswordPage() {
  const navigate = useNavigate();
  const session = useSessionStore((s) => s.session);
  const setSession = useSessionStore((s) => s.setSession);
  const [{ tokenHash, error, errorCode }] = useState(readParams);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const checked = useRef(false);

  useEffect(() => {
    if (checked.current) return;
    checked.current = true;
    if (error) {
      toast({
        title: 'Link non valido',
        description: resetLinkError(errorCode),
        variant: 'destructive',
      });
      navigate('/forgot-password', { replace: true });
    } else if (!tokenHash && !session) {
      toast({ title: 'Link mancante', description: 'Devi utilizzare il link inviato via email per reimpostare la password.', variant: 'destructive' });
      navigate('/forgot-password', { replace: true });
    }
  }, [error, errorCode, tokenHash, session, navigate]);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const issue = validateResetForm(password, confirm);
    setFormError(issue);
    if (issue) return;
    setBusy(true);
    try {
      if (tokenHash) setSession(await verifyLink({ token_hash: tokenHash, type: 'recovery' }));
      await resetPassword(password);
      toast({ title: 'Password aggiornata', description: 'Verrai reindirizzato al login.' });
      setTimeout(() => navigate('/auth', { replace: true }), 2000);
    } catch (err) {
      toast({
        title: 'Errore aggiornamento password',
        description: errorMessage(err, "Si è verificato un errore nell'aggiornamento della password"),
        variant: 'destructive',
      });
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthShell title="Reimposta password" subtitle="Scegli una nuova password per il tuo account." footer={<Link to="/auth">Torna al login</Link>}>
      <form onSubmit={onSubmit} className="form" aria-label="Reimposta password">
        <PasswordField label="Nuova password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        <PasswordField label="Conferma password" autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.target.value)} />
        {formError ? (
          <p role="alert" className="form-error">
            {formError}
          </p>
        ) : null}
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          Aggiorna password
        </button>
      </form>
    </AuthShell>
  );
}
