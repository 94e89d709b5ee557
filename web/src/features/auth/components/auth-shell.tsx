import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { PRODUCT_NAME } from '@/config/constants';

/** Centered card used by the public auth screens. */
export function AuthShell({ title, subtitle, children, footer }: { title: string; subtitle?: string; children: ReactNode; footer?: ReactNode }) {
  return (
    <main className="auth-page">
      <Link to="/" className="brand auth-brand" aria-label={`${PRODUCT_NAME} – home`}>
        <img src="/favicon.svg" alt="" width={32} height={32} /> {PRODUCT_NAME}
      </Link>
      <section className="card auth-card" aria-labelledby="auth-title">
        <h1 id="auth-title">{title}</h1>
        {subtitle ? <p className="muted">{subtitle}</p> : null}
        {children}
        {footer ? <div className="auth-footer">{footer}</div> : null}
      </section>
    </main>
  );
}
