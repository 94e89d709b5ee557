import { useEffect } from 'react';
import { Link } from 'react-router-dom';

export function NotFoundPage() {
  useEffect(() => {
    document.title = 'Pagina non trovata – FotoPronta';
  }, []);
  return (
    <main className="full-page-center">
      <section className="card not-found" aria-labelledby="nf-title">
        <p className="not-found-code" aria-hidden="true">
          404
        </p>
        <h1 id="nf-title">Pagina non trovata</h1>
        <p className="muted">La pagina che cerchi non esiste o è stata spostata.</p>
        <Link to="/" className="btn btn-primary">
          Torna alla Home
        </Link>
      </section>
    </main>
  );
}
