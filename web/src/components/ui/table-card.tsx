import { useEffect, useRef, useState, type ReactNode } from 'react';

/** The hint shown above a table wider than its card (phones). */
export const SCROLL_HINT = 'Scorri di lato per vedere tutte le colonne';

/**
 * A card holding a wide table: it scrolls sideways inside the card and, while the table is wider than
 * the card, a hint says so (kept in view at the left edge while scrolling). The width is watched with a
 * ResizeObserver, so the hint follows rotation, resizing and new rows.
 */
export function TableCard({ children, className = '' }: { children: ReactNode; className?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    const card = ref.current;
    if (!card || typeof ResizeObserver === 'undefined') return undefined;
    const check = () => setOverflows(card.scrollWidth > card.clientWidth + 1);
    const observer = new ResizeObserver(check);
    observer.observe(card);
    const table = card.querySelector('table');
    if (table) observer.observe(table);
    check();
    return () => observer.disconnect();
  }, []);
  return (
    <div ref={ref} className={`card table-card ${className}`}>
      {overflows ? (
        <p className="table-hint" role="note">
          {SCROLL_HINT} <span aria-hidden="true">→</span>
        </p>
      ) : null}
      {children}
    </div>
  );
}
