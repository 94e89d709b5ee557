import type { ReactNode } from 'react';

export type BadgeTone = 'neutral' | 'info' | 'success' | 'warning' | 'danger' | 'brand';

export function Badge({ tone = 'neutral', children, label }: { tone?: BadgeTone; children: ReactNode; label?: string }) {
  return (
    <span className={`badge badge-${tone}`} aria-label={label}>
      {children}
    </span>
  );
}
