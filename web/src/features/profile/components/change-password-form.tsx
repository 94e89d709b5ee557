import { useState, type FormEvent } from 'react';
import { PasswordField } from '@/components/ui/field';
import { toast } from '@/components/ui/toast';
import { errorMessage } from '@/lib/api-client';
import { changePassword } from '../api/profile-api';

/** The new password's checks, worded as on /reset-password (SPEC §5). */
function checkNewPassword(current: string, password: string, confirm: string): string | null {
  if (!current) return 'Inserisci la password attuale';
  if (password !== confirm) return 'Le password non coincidono';
  if (password.length < 6) return 'La password deve essere di almeno 6 caratteri';
  return null;
}

/**
 * 'Cambia password' on /profile, in place: the current password and the new one twice, sent to
 * `POST /api/auth/password/change`. This session stays signed in; the server ends every other one.
 * Errors (wrong current password, too short, too many attempts) show under the form in Italian.
 */
export function ChangePasswordForm({ onDone }: { onDone: () => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const issue = checkNewPassword(current, next, confirm);
    setError(issue);
    if (issue) return;
    setBusy(true);
    try {
      await changePassword(current, next);
      toast({ title: 'Password aggiornata', description: 'Resti connesso qui; gli altri dispositivi sono stati disconnessi.' });
      onDone();
    } catch (err) {
      setError(errorMessage(err, "Si è verificato un errore nell'aggiornamento della password"));
      setCurrent('');
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form" onSubmit={onSubmit} aria-label="Cambia password" noValidate>
      <PasswordField label="Password attuale" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
      <PasswordField label="Nuova password" autoComplete="new-password" required minLength={6} hint="Almeno 6 caratteri." value={next} onChange={(e) => setNext(e.target.value)} />
      <PasswordField label="Conferma nuova password" autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.target.value)} />
      {error ? (
        <p role="alert" className="form-error">
          {error}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Aggiornamento...' : 'Aggiorna password'}
        </button>
        <button type="button" className="btn btn-ghost" onClick={onDone} disabled={busy}>
          Annulla
        </button>
      </div>
    </form>
  );
}
