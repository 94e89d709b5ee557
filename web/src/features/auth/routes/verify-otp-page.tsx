import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router-dom';
import { Field, PasswordField } from '@/components/ui/field';
import { toast } from '@/components/ui/toast';
import { ApiError, errorMessage } from '@/lib/api-client';
import { forgotPassword, verifyOtp } from '../api/auth-api';
import { AuthShell } from '../components/auth-shell';
import { otpFailureMessage, validateOtpForm } from '../lib/validation';

export function VerifyOtpPage() {
  const navigate = useNavigate();
  const location = useLocation();
  const email = (location.state as { email?: string } | null)?.email ?? '';
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [resending, setResending] = useState(false);
  const warned = useRef(false);

  useEffect(() => {
    if (!email && !warned.current) {
      warned.current = true;
      toast({ title: 'Email mancante', description: 'Inserisci di nuovo la tua email per ricevere il codice.', variant: 'destructive' });
    }
  }, [email]);

  if (!email) return <Navigate to="/forgot-password" replace />;

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const issue = validateOtpForm(code, password, confirm);
    if (issue) {
      toast({ ...issue, variant: 'destructive' });
      return;
    }
    setBusy(true);
    try {
      await verifyOtp({ email, token: code, password });
      toast({ title: 'Password aggiornata', description: 'Ora puoi accedere con la nuova password.' });
      navigate('/auth', { replace: true });
    } catch (error) {
      if (error instanceof ApiError && error.status > 0 && error.status < 500) {
        toast({ title: 'Verifica fallita', description: otpFailureMessage(error.detail, error.code), variant: 'destructive' });
      } else {
        toast({ title: 'Errore', description: errorMessage(error, 'Si è verificato un errore imprevisto. Riprova.'), variant: 'destructive' });
      }
    } finally {
      setBusy(false);
    }
  };

  const resend = async () => {
    setResending(true);
    try {
      await forgotPassword(email);
      toast({ title: 'Codice inviato', description: `Abbiamo inviato un nuovo codice a ${email}.` });
    } catch (error) {
      toast({ title: 'Errore invio', description: errorMessage(error), variant: 'destructive' });
    } finally {
      setResending(false);
    }
  };

  return (
    <AuthShell
      title="Verifica il codice"
      subtitle={`Inserisci il codice di 6 cifre inviato a ${email} e scegli una nuova password.`}
      footer={<Link to="/forgot-password">Torna indietro</Link>}
    >
      <form onSubmit={onSubmit} className="form" aria-label="Verifica codice">
        <Field
          label="Codice di verifica"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="\d{6}"
          maxLength={6}
          required
          className="otp-field"
          value={code}
          onChange={(e) => setCode(e.target.value.replace(/\D/g, '').slice(0, 6))}
        />
        <PasswordField label="Nuova password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        <PasswordField label="Conferma password" autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.target.value)} />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Verifica in corso...' : 'Cambia password'}
        </button>
      </form>
      <p className="center-text">
        <button type="button" className="btn btn-link" onClick={resend} disabled={resending}>
          Non hai ricevuto il codice? Invia di nuovo
        </button>
      </p>
    </AuthShell>
  );
}
