import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { Field, PasswordField } from '@/components/ui/field';
import { toast } from '@/components/ui/toast';
import { PRODUCT_NAME } from '@/config/constants';
import { useConfig } from '@/lib/app-config';
import { errorMessage } from '@/lib/api-client';
import { login } from '@/lib/auth';
import { useSessionStore } from '@/stores/session';
import { resetPassword, signup } from '../api/auth-api';
import { AuthShell } from '../components/auth-shell';
import { SignedInRedirect } from '../components/guards';

type Tab = 'login' | 'signup';

function LoginForm() {
  const setSession = useSessionStore((s) => s.setSession);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      const session = await login({ email: email.trim(), password });
      setSession(session);
      toast({ title: 'Accesso effettuato', description: `Benvenuto in ${PRODUCT_NAME}` });
      // AuthPage then renders <SignedInRedirect>, which sends each role to its home (designers: /graphics-dashboard)
    } catch (error) {
      toast({ title: 'Errore accesso', description: errorMessage(error), variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={onSubmit} className="form" aria-label="Accedi">
      <Field label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <PasswordField label="Password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      <div className="form-row-end">
        <Link to="/forgot-password">Password dimenticata?</Link>
      </div>
      <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
        {busy ? 'Accesso in corso...' : 'Accedi'}
      </button>
    </form>
  );
}

function SignupForm({ onDone }: { onDone: () => void }) {
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (password.length < 6) {
      toast({ title: 'Errore registrazione', description: 'La password deve essere di almeno 6 caratteri', variant: 'destructive' });
      return;
    }
    setBusy(true);
    try {
      await signup({ email: email.trim(), password, first_name: firstName.trim(), last_name: lastName.trim() });
      toast({ title: 'Registrazione completata', description: "Controlla la tua email per confermare l'account", duration: 8000 });
      onDone();
    } catch (error) {
      toast({ title: 'Errore registrazione', description: errorMessage(error), variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={onSubmit} className="form" aria-label="Registrati">
      <div className="form-grid-2">
        <Field label="Nome" autoComplete="given-name" maxLength={60} required value={firstName} onChange={(e) => setFirstName(e.target.value)} />
        <Field label="Cognome" autoComplete="family-name" maxLength={60} value={lastName} onChange={(e) => setLastName(e.target.value)} />
      </div>
      <Field label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <PasswordField
        label="Password"
        autoComplete="new-password"
        required
        minLength={6}
        placeholder="Minimo 6 caratteri"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
        {busy ? 'Registrazione in corso...' : 'Crea Account'}
      </button>
      <p className="fine-print">
        Creando un account accetti i <Link to="/terms-of-service">Termini di servizio</Link> e la{' '}
        <Link to="/privacy-policy">Privacy Policy</Link>.
      </p>
    </form>
  );
}

/** Password-reset mode (`/auth?type=recovery`), reached with a recovery session from the e-mailed link. */
function RecoveryForm() {
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const announced = useRef(false);

  useEffect(() => {
    if (announced.current) return;
    announced.current = true;
    toast({ title: 'Cambia Password', description: 'Inserisci la tua nuova password (minimo 6 caratteri)' });
  }, []);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (password.length < 6) {
      toast({ title: 'Errore aggiornamento password', description: 'Inserisci la tua nuova password (minimo 6 caratteri)', variant: 'destructive' });
      return;
    }
    setBusy(true);
    try {
      await resetPassword(password);
      // the server ends every session, this one-time one too: sign in with the new password
      useSessionStore.getState().clearSession();
      toast({ title: 'Password aggiornata', description: 'Ora puoi accedere con la nuova password.' });
      navigate('/auth', { replace: true });
    } catch (error) {
      toast({
        title: 'Errore aggiornamento password',
        description: errorMessage(error, "Si è verificato un errore nell'aggiornamento della password"),
        variant: 'destructive',
      });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={onSubmit} className="form" aria-label="Nuova password">
      <PasswordField
        label="Nuova password"
        autoComplete="new-password"
        required
        minLength={6}
        placeholder="Inserisci la tua nuova password (minimo 6 caratteri)"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
        Cambia password
      </button>
    </form>
  );
}

export function AuthPage() {
  const [params] = useSearchParams();
  const session = useSessionStore((s) => s.session);
  const recovery = params.get('type') === 'recovery';
  const freeTrial = params.get('from') === 'free-trial';
  const freeCredits = useConfig().data?.free_credits ?? '…';
  const [tab, setTab] = useState<Tab>(freeTrial ? 'signup' : 'login');

  if (session && !recovery) return <SignedInRedirect />;

  if (recovery && session) {
    return (
      <AuthShell title="Cambia Password" subtitle="Scegli una nuova password per il tuo account.">
        <RecoveryForm />
      </AuthShell>
    );
  }

  const tabs: { id: Tab; label: string }[] = [
    { id: 'login', label: 'Accedi' },
    { id: 'signup', label: 'Registrati' },
  ];

  return (
    <AuthShell
      title={freeTrial ? 'Inizia la tua prova gratuita' : 'Benvenuto'}
      subtitle={
        freeTrial
          ? `Crea il tuo account e ricevi ${freeCredits} crediti gratuiti: ${freeCredits} foto elaborate senza pagare nulla.`
          : 'Accedi o crea un account per elaborare le tue foto prodotto.'
      }
    >
      <div role="tablist" aria-label="Accesso o registrazione" className="tabs">
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            className={`tab ${tab === t.id ? 'tab-active' : ''}`}
            onClick={() => setTab(t.id)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') setTab(tab === 'login' ? 'signup' : 'login');
            }}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tab-panel">
        {tab === 'login' ? <LoginForm /> : <SignupForm onDone={() => setTab('login')} />}
      </div>
    </AuthShell>
  );
}
