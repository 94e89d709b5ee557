import { errorMessage } from '@/lib/api-client';
import { Card } from './card';

/**
 * A query that could not load: the Italian headline, the server's message and 'Riprova' (an alert, so
 * screen readers announce it).
 */
export function LoadErrorCard({ title, error, onRetry }: { title: string; error: unknown; onRetry: () => void }) {
  return (
    <Card role="alert" className="empty-state">
      <p>{title}</p>
      <p>{errorMessage(error)}</p>
      <button type="button" className="btn btn-primary" onClick={onRetry}>
        Riprova
      </button>
    </Card>
  );
}
