import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Field } from '@/components/ui/field';
import { toast } from '@/components/ui/toast';
import { errorMessage } from '@/lib/api-client';
import { forgotPassword } from '../api/auth-api';
import { AuthShell } from '../components/auth-shell';

export function ForgotPasswordPage() {
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const value = email.trim();
    if (!value) return;
    setBusy(true);
    try {
      await forgotPassword(value);
      toast({ title: 'Email inviata', description: 'Controlla la tua email per reimpostare la password' });
      navigate('/verify-otp', { state: { email: value } });
    } catch (error) {
      toast({ title: 'Errore reset password', description: errorMessage(error), variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthShell
      title="Password dimenticata?"
      subtitle="Inserisci la tua email: ti invieremo un codice di verifica e un link per reimpostare la password."
      footer={<Link to="/auth">Torna al login</Link>}
    >
      <form onSubmit={onSubmit} className="form" aria-label="Recupero password">
        <Field label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy || email.trim() === ''}>
          {busy ? 'Invio in corso...' : 'Invia link di reset'}
        </button>
      </form>
    </AuthShell>
  );
}
