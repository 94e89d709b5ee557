import { useQueryClient } from '@tanstack/react-query';
import { X } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/components/ui/toast';
import { errorMessage } from '@/lib/api-client';
import { creditCount } from '@/lib/format';
import { verifyPayment } from '@/lib/payments';

type State = 'idle' | 'verifying' | 'verified' | 'failed';

/**
 * Handles the return from checkout on /dashboard: `?canceled=true` shows 'Pagamento Annullato';
 * `?success=true&session_id=…` shows the verification overlay, then cleans the URL (a reload does not
 * verify again), reloads data and leaves 'Pagamento completato' as a banner until the seller closes it.
 */
export function PaymentReturn() {
  const [params, setParams] = useSearchParams();
  const queryClient = useQueryClient();
  const sessionId = params.get('success') === 'true' ? params.get('session_id') : null;
  const [state, setState] = useState<State>('idle');
  const [message, setMessage] = useState('');
  const started = useRef(false);

  useEffect(() => {
    if (params.get('canceled') === 'true') {
      toast({ title: 'Pagamento Annullato', description: 'Nessun addebito è stato effettuato.' });
      setParams({}, { replace: true });
    }
  }, [params, setParams]);

  const verify = useCallback(async () => {
    if (!sessionId) return;
    setState('verifying');
    try {
      const result = await verifyPayment(sessionId);
      if (!result?.success) throw new Error(result?.error || 'Verifica pagamento fallita');
      setState('verified');
      setMessage(
        result.creditsAdded === 1 ? 'È stato aggiunto 1 credito.' : result.creditsAdded ? `Sono stati aggiunti ${creditCount(result.creditsAdded)}.` : 'Pagamento verificato.',
      );
      setParams({}, { replace: true });
      await queryClient.invalidateQueries();
    } catch (error) {
      const msg = error instanceof Error && !('detail' in error) ? error.message : errorMessage(error, 'Errore sconosciuto');
      setState('failed');
      setMessage(msg);
      toast({ title: 'Errore Verifica Pagamento', description: msg, variant: 'destructive' });
    }
  }, [sessionId, queryClient, setParams]);

  useEffect(() => {
    if (sessionId && !started.current) {
      started.current = true;
      void verify();
    }
  }, [sessionId, verify]);

  if (state === 'verified') {
    return (
      <div className="notice success payment-banner" role="status" aria-label="Pagamento completato">
        <div>
          <strong>Pagamento completato</strong>
          <p>{message}</p>
        </div>
        <button type="button" className="btn btn-ghost btn-sm" aria-label="Chiudi messaggio di pagamento" onClick={() => setState('idle')}>
          <X aria-hidden="true" size={18} />
        </button>
      </div>
    );
  }
  if (!sessionId || state === 'idle') return null;
  return (
    <div className="overlay" role="dialog" aria-modal="true" aria-label="Verifica pagamento">
      <div className="card overlay-card">
        {state === 'verifying' ? (
          <>
            <Spinner label="Verifica pagamento in corso..." />
            <p>Verifica del pagamento in corso...</p>
          </>
        ) : (
          <>
            <h2>Verifica pagamento fallita</h2>
            <p>{message}</p>
            <div className="button-row">
              <button type="button" className="btn btn-primary" onClick={() => void verify()}>
                Riprova
              </button>
              <button type="button" className="btn btn-outline" onClick={() => setParams({}, { replace: true })}>
                Chiudi
              </button>
            </div>
          </>
        )}
      </div>
    </div>
  );
}
