import { useEffect, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { PRODUCT_NAME } from '@/config/constants';

export function LegalLayout({ title, updated, children }: { title: string; updated: string; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} – ${PRODUCT_NAME}`;
  }, [title]);
  return (
    <div className="legal">
      <header className="legal-header">
        <div className="container narrow">
          <Link to="/" className="btn btn-ghost btn-sm">
            ← Torna al sito
          </Link>
        </div>
      </header>
      <main className="container narrow legal-body">
        <h1>{title}</h1>
        <p className="muted">Ultimo aggiornamento: {updated}</p>
        {children}
      </main>
    </div>
  );
}
