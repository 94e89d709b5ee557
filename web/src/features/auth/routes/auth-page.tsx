import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { Field, PasswordField } from '@/components/ui/field';
import { toast } from '@/components/ui/toast';
import { PRODUCT_NAME } from '@/config/constants';
import { useConfig } from '@/lib/app-config';
import { errorMessage } from '@/lib/api-client';
import { login } from '@/lib/auth';
import { useSessionStore } from '@/stores/session';
import { pairSignup, resetPassword, signup } from '../api/auth-api';
import { AuthShell } from '../components/auth-shell';
import { SignedInRedirect } from '../components/guards';

type Tab = 'login' | 'signup';

function LoginForm({ initialEmail = '' }: { initialEmail?: string }) {
  const setSession = useSessionStore((s) => s.setSession);
  const [email, setEmail] = useState(initialEmail);
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

/** What the sign-up left on the page: the address the link went to and the code for another browser. */
interface SignedUp {
  email: string;
  pairingCode: string;
}

function SignupForm({ onDone }: { onDone: (done: SignedUp) => void }) {
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
      const result = await signup({ email: email.trim(), password, first_name: firstName.trim(), last_name: lastName.trim() });
      toast({ title: 'Registrazione completata', description: "Controlla la tua email per confermare l'account", duration: 8000 });
      onDone({ email: result.email ?? email.trim(), pairingCode: result.pairing_code ?? '' });
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

/** Stays on the page after sign-up: where the link went, and the code to type if it is opened elsewhere. */
function CheckYourEmail({ done }: { done: SignedUp }) {
  const spaced = done.pairingCode.replace(/^(\d{3})(\d{3})$/, '$1 $2');
  return (
    <section className="notice success signup-done" role="status" aria-labelledby="signup-done-title">
      <h2 id="signup-done-title" className="notice-title">
        Controlla la tua email
      </h2>
      <p>
        Abbiamo inviato il link di conferma a <strong>{done.email}</strong>. Aprilo per attivare l'account, poi accedi qui sotto con la password che hai
        scelto.
      </p>
      {done.pairingCode ? (
        <p>
          Se apri il link su un altro dispositivo (per esempio sul telefono), lì ti chiederemo questo codice:{' '}
          <strong className="pairing-code" aria-label={`Codice ${done.pairingCode.split('').join(' ')}`}>
            {spaced}
          </strong>
          . Così potrai accedere anche da qui con la tua password.
        </p>
      ) : null}
    </section>
  );
}

/** A sign-up link opened in another browser (`/auth?type=recovery&from=signup`): the address is
 * confirmed; the code shown after sign-up makes the password chosen then work (here and where the
 * seller signed up), otherwise a new password is chosen here. */
function ConfirmedElsewhere() {
  const navigate = useNavigate();
  const setSession = useSessionStore((s) => s.setSession);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const digits = code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(digits)) {
      setError('Inserisci il codice di 6 cifre mostrato dopo la registrazione.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      setSession(await pairSignup(digits));
      toast({ title: 'Accesso effettuato', description: 'Ora puoi accedere anche dal dispositivo in cui ti sei registrato, con la password che avevi scelto.' });
      navigate('/dashboard', { replace: true });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="form">
      <div className="notice success" role="status">
        <p>
          <strong>Il tuo indirizzo email è confermato.</strong> Hai aperto il link in un browser diverso da quello in cui è stato creato l'account: per
          sicurezza, qui la password scelta alla registrazione non vale finché non ci confermi che l'account l'hai creato tu.
        </p>
      </div>
      <form onSubmit={onSubmit} className="form" aria-label="Codice della registrazione">
        <Field
          label="Codice di 6 cifre mostrato dopo la registrazione"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={7}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          hint="Lo trovi sulla pagina in cui ti sei registrato, sotto 'Controlla la tua email'. Poi potrai accedere lì con la tua password."
        />
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Verifica in corso...' : 'Conferma con il codice'}
        </button>
      </form>
      <p className="muted">Non hai il codice, o l'account non l'hai creato tu? Scegli qui una nuova password: sarà l'unica valida.</p>
      <RecoveryForm announce={false} />
    </div>
  );
}

/** Password-reset mode (`/auth?type=recovery`), reached with a recovery session from the e-mailed link. */
function RecoveryForm({ announce = true }: { announce?: boolean }) {
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const announced = useRef(false);

  useEffect(() => {
    if (announced.current || !announce) return;
    announced.current = true;
    toast({ title: 'Cambia Password', description: 'Inserisci la tua nuova password (minimo 6 caratteri)' });
  }, [announce]);

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
  const [signedUp, setSignedUp] = useState<SignedUp | null>(null);

  if (session && !recovery) return <SignedInRedirect />;

  if (recovery && session && params.get('from') === 'signup') {
    return (
      <AuthShell title="Email confermata" subtitle="Ancora un passo per accedere in sicurezza.">
        <ConfirmedElsewhere />
      </AuthShell>
    );
  }

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
      {signedUp ? <CheckYourEmail done={signedUp} /> : null}
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tab-panel">
        {tab === 'login' ? (
          <LoginForm key={signedUp?.email ?? ''} initialEmail={signedUp?.email} />
        ) : (
          <SignupForm
            onDone={(done) => {
              setSignedUp(done);
              setTab('login');
            }}
          />
        )}
      </div>
    </AuthShell>
  );
}
