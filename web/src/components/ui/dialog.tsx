import { X } from 'lucide-react';
import { useEffect, useId, useRef, type ReactNode } from 'react';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog over the page: labelled by its title, Escape and the close button call `onClose`,
 * focus moves in on open (first field, else first action), stays inside while open (Tab cycles) and returns to the opener on close.
 */
export function Dialog({ title, description, onClose, children, wide = false }: { title: string; description?: ReactNode; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();

  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    // The first field, else the first action (the safe 'Annulla' of a confirmation), else the dialog.
    const first =
      ref.current?.querySelector<HTMLElement>('textarea, input:not([type="file"]), select') ??
      ref.current?.querySelector<HTMLElement>('.dialog-actions button:not([disabled])') ??
      ref.current;
    first?.focus();
    return () => opener?.focus?.();
  }, []);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onClose();
      return;
    }
    if (e.key !== 'Tab' || !ref.current) return;
    const items = Array.from(ref.current.querySelectorAll<HTMLElement>(FOCUSABLE));
    if (items.length === 0) return;
    const [first, last] = [items[0], items[items.length - 1]];
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={ref} className={`card dialog ${wide ? 'dialog-wide' : ''}`} role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1} onKeyDown={onKeyDown}>
        <div className="dialog-head">
          <h2 id={titleId} className="card-title">
            {title}
          </h2>
          <button type="button" className="btn btn-ghost btn-sm" aria-label="Chiudi" onClick={onClose}>
            <X aria-hidden="true" size={18} />
          </button>
        </div>
        {description ? <p className="card-description">{description}</p> : null}
        {children}
      </div>
    </div>
  );
}
