import { useId, useState, type FormEvent } from 'react';
import { Dialog } from '@/components/ui/dialog';
import { trialMailto, validateTrial, type TrialErrors, type TrialRequest } from '../lib/trial';

/** Opens the visitor's mail client on a `mailto:` address (through a link, as a click would). */
function openMailClient(href: string) {
  const link = document.createElement('a');
  link.href = href;
  link.click();
}

function TrialField({ name, label, type, value, error, onChange, placeholder, autoComplete }: {
  name: keyof TrialRequest;
  label: string;
  type: string;
  value: string;
  error?: string;
  onChange: (value: string) => void;
  placeholder?: string;
  autoComplete?: string;
}) {
  const id = `${useId()}-${name}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        className="input"
        type={type}
        value={value}
        placeholder={placeholder}
        autoComplete={autoComplete}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {error ? (
        <p id={`${id}-error`} className="form-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** 'Prova gratuita' (3 photos, free): nome, email, sito → a prefilled e-mail to us (SPEC §2, §5). */
export function TrialDialog({ onClose }: { onClose: () => void }) {
  const [form, setForm] = useState<TrialRequest>({ nome: '', email: '', sito: '' });
  const [errors, setErrors] = useState<TrialErrors>({});
  const set = (key: keyof TrialRequest) => (value: string) => setForm((f) => ({ ...f, [key]: value }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found = validateTrial(form);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    openMailClient(trialMailto(form));
    onClose();
  };

  return (
    <Dialog title="Prova gratuita" description="Ritocchiamo gratis 3 foto dei tuoi prodotti. Lasciaci i tuoi dati: si aprirà il tuo programma di posta con la richiesta già pronta." onClose={onClose}>
      <form className="form" noValidate aria-label="Prova gratuita" onSubmit={submit}>
        <TrialField name="nome" label="Nome" type="text" autoComplete="name" value={form.nome} error={errors.nome} onChange={set('nome')} />
        <TrialField name="email" label="Email" type="email" autoComplete="email" value={form.email} error={errors.email} onChange={set('email')} />
        <TrialField name="sito" label="Sito (facoltativo)" type="url" autoComplete="url" placeholder="https://www.tuonegozio.it" value={form.sito} error={errors.sito} onChange={set('sito')} />
        <div className="dialog-actions">
          <button type="button" className="btn btn-outline" onClick={onClose}>
            Annulla
          </button>
          <button type="submit" className="btn btn-primary">
            Invia richiesta
          </button>
        </div>
      </form>
    </Dialog>
  );
}
