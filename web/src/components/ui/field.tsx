import { useId, useState, type InputHTMLAttributes } from 'react';

type FieldProps = InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: string };

/** A labelled input (label/for wiring so tests and screen readers find it by its label). */
export function Field({ label, hint, id, className = '', ...props }: FieldProps) {
  const autoId = useId();
  const inputId = id ?? autoId;
  const hintId = hint ? `${inputId}-hint` : undefined;
  return (
    <div className={`field ${className}`}>
      <label htmlFor={inputId}>{label}</label>
      <input id={inputId} className="input" aria-describedby={hintId} {...props} />
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/** Password input with a show/hide toggle. */
export function PasswordField({ label, hint, id, ...props }: Omit<FieldProps, 'type'>) {
  const autoId = useId();
  const inputId = id ?? autoId;
  const [visible, setVisible] = useState(false);
  const hintId = hint ? `${inputId}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      <div className="input-with-button">
        <input id={inputId} className="input" type={visible ? 'text' : 'password'} aria-describedby={hintId} {...props} />
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          aria-label={visible ? 'Nascondi password' : 'Mostra password'}
          aria-pressed={visible}
          onClick={() => setVisible((v) => !v)}
        >
          {visible ? 'Nascondi' : 'Mostra'}
        </button>
      </div>
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
