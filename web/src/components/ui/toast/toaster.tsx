import { useToastStore } from './toast-store';

/**
 * Renders the visible toast (one at a time: the head of the store's queue). Errors are announced as
 * alerts, the rest politely as status messages. While a modal dialog is open the toaster moves to the
 * top of the screen (CSS), away from the dialog's actions.
 */
export function Toaster() {
  const toasts = useToastStore((s) => s.toasts);
  const dismiss = useToastStore((s) => s.dismiss);
  return (
    <section className="toaster" aria-label="Messaggi">
      {toasts.slice(0, 1).map((t) => (
        <div
          key={t.id}
          role={t.variant === 'destructive' ? 'alert' : 'status'}
          className={`toast ${t.variant === 'destructive' ? 'toast-destructive' : ''}`}
          data-variant={t.variant ?? 'default'}
        >
          <div className="toast-body">
            <p className="toast-title">{t.title}</p>
            {t.description ? <p className="toast-description">{t.description}</p> : null}
            {t.action ? (
              <button
                type="button"
                className="btn btn-sm btn-outline toast-action"
                onClick={() => {
                  t.action?.onClick();
                  dismiss(t.id);
                }}
              >
                {t.action.label}
              </button>
            ) : null}
          </div>
          <button type="button" className="toast-close" aria-label="Chiudi messaggio" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </section>
  );
}
