import { CONTACT_EMAIL } from '@/config/constants';

export interface TrialRequest {
  nome: string;
  email: string;
  sito: string;
}

export type TrialErrors = Partial<Record<keyof TrialRequest, string>>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** `sito` as a URL: with or without `https://`, an http(s) address whose host has a dot. */
export function normaliseSite(value: string): string | null {
  const text = value.trim();
  if (!text) return '';
  for (const candidate of [text, `https://${text}`]) {
    try {
      const url = new URL(candidate);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && /^[^.\s]+(\.[^.\s]+)+$/.test(url.hostname)) return url.href;
    } catch {
      // not a URL: try with the scheme
    }
  }
  return null;
}

/** SPEC §5 trial form: nome and email required, email valid, sito a URL if given. */
export function validateTrial(form: TrialRequest): TrialErrors {
  const errors: TrialErrors = {};
  if (!form.nome.trim()) errors.nome = 'Il nome è obbligatorio';
  if (!form.email.trim()) errors.email = "L'email è obbligatoria";
  else if (!EMAIL.test(form.email.trim())) errors.email = 'Inserisci un indirizzo email valido';
  if (normaliseSite(form.sito) === null) errors.sito = 'Inserisci un indirizzo web valido (es. https://www.tuonegozio.it)';
  return errors;
}

/** The prefilled message to the company address (SPEC §2 'Prova gratuita'). */
export function trialMailto(form: TrialRequest): string {
  const site = normaliseSite(form.sito) || 'non indicato';
  const subject = 'Richiesta prova gratuita (3 foto)';
  const body = [
    'Ciao, vorrei provare gratis il ritocco di 3 foto dei miei prodotti.',
    '',
    `Nome: ${form.nome.trim()}`,
    `Email: ${form.email.trim()}`,
    `Sito: ${site}`,
  ].join('\n');
  return `mailto:${CONTACT_EMAIL}?subject=${encodeURIComponent(subject)}&body=${encodeURIComponent(body)}`;
}
