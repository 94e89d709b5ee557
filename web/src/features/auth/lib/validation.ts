export interface ValidationIssue {
  title: string;
  description: string;
}

/** /verify-otp checks (SPEC §5), in the order the user sees them. */
export function validateOtpForm(code: string, password: string, confirm: string): ValidationIssue | null {
  if (!/^\d{6}$/.test(code)) return { title: 'Codice non valido', description: 'Inserisci un codice di verifica di 6 cifre.' };
  if (password.length < 6) return { title: 'Password non valida', description: 'La password deve essere lunga almeno 6 caratteri.' };
  if (password !== confirm) return { title: 'Password non corrispondenti', description: 'Le password inserite non corrispondono.' };
  return null;
}

/** /reset-password checks (SPEC §5). */
export function validateResetForm(password: string, confirm: string): string | null {
  if (password !== confirm) return 'Le password non coincidono';
  if (password.length < 6) return 'La password deve essere di almeno 6 caratteri';
  return null;
}

/** Italian message for a failed code verification (SPEC §8 'Verifica fallita'). */
export function otpFailureMessage(detail: string | null | undefined, code?: string | null): string {
  const text = `${code ?? ''} ${detail ?? ''}`.toLowerCase();
  if (text.includes('expired') || text.includes('scadut')) return 'Il codice di verifica è scaduto. Richiedi un nuovo codice.';
  if (text.includes('invalid') || text.includes('non è valido') || text.includes('non valido'))
    return detail && /[àèéìòù]|codice/i.test(detail) ? detail : 'Il codice di verifica non è valido. Controlla e riprova.';
  return detail || 'Codice di verifica non valido o scaduto.';
}
