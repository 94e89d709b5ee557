import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Card, CardHeader } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/components/ui/toast';
import { errorMessage } from '@/lib/api-client';
import { useConfig } from '@/lib/app-config';
import type { CreditPurchase } from '@/types/api';
import { ME_QUERY_KEY, useMe } from '@/lib/auth';
import { creditCount, daysUntil, formatCents, formatDate } from '@/lib/format';
import { verifyPayment } from '@/lib/payments';
import { purchaseName, startCheckout, usePackages, usePurchases } from '../api/credits-api';

function expiryText(date: string | null | undefined): { text: string; soon: boolean } {
  if (!date) return { text: 'Non impostata', soon: false };
  const days = daysUntil(date);
  if (days === null) return { text: 'Non impostata', soon: false };
  if (days < 0) return { text: `Scaduti il ${formatDate(date)}`, soon: true };
  if (days === 0) return { text: 'Scadono oggi', soon: true };
  if (days === 1) return { text: 'Scadono domani', soon: true };
  if (days <= 30) return { text: `Scadono tra ${days} giorni`, soon: true };
  return { text: formatDate(date), soon: false };
}

export function CreditsPage() {
  const me = useMe();
  const costs = useConfig().data?.job_costs;
  const purchases = usePurchases();
  const packages = usePackages();
  const queryClient = useQueryClient();
  const [buying, setBuying] = useState<string | null>(null);

  const allCompleted = (purchases.data ?? []).filter((p) => p.status === 'completed');
  const completed = allCompleted.slice(0, 5);
  const pending = (purchases.data ?? []).filter((p) => p.status === 'pending');
  const [verifying, setVerifying] = useState<string | null>(null);
  const expiry = expiryText(me.data?.credits_expiry_date);
  const buyable = (packages.data ?? []).filter((p) => p.price_cents > 0).sort((a, b) => a.price_cents - b.price_cents);

  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ME_QUERY_KEY });
    await queryClient.invalidateQueries({ queryKey: ['credit-purchases'] });
    toast({ title: 'Crediti aggiornati' });
  };

  const reload = async () => {
    await queryClient.invalidateQueries({ queryKey: ME_QUERY_KEY });
    await queryClient.invalidateQueries({ queryKey: ['credit-purchases'] });
  };

  /** Verify one pending payment; `quiet` leaves the toasts to 'Verifica tutti'. */
  const verifyOne = async (p: CreditPurchase, quiet = false): Promise<boolean> => {
    if (!p.stripe_payment_intent_id) {
      if (!quiet) toast({ title: 'Errore', description: 'Sessione di pagamento mancante', variant: 'destructive' });
      return false;
    }
    try {
      const result = await verifyPayment(p.stripe_payment_intent_id);
      if (result.success) {
        if (!quiet) toast({ title: 'Pagamento verificato', description: result.creditsAdded === 1 ? 'È stato aggiunto 1 credito.' : `Sono stati aggiunti ${creditCount(result.creditsAdded ?? 0)}.` });
        return true;
      }
      if (!quiet) {
        const detail = result.error && result.error !== 'Pagamento non completato' ? result.error : 'Il pagamento non risulta ancora elaborato.';
        toast({ title: 'Pagamento non completato', description: detail, variant: 'destructive' });
      }
      return false;
    } catch (error) {
      if (!quiet) toast({ title: 'Errore Verifica', description: errorMessage(error), variant: 'destructive' });
      return false;
    }
  };

  const verifySingle = async (p: CreditPurchase) => {
    setVerifying(p.id);
    try {
      await verifyOne(p);
      await reload();
    } finally {
      setVerifying(null);
    }
  };

  const verifyAll = async () => {
    setVerifying('all');
    try {
      let ok = 0;
      for (const p of pending) if (await verifyOne(p, true)) ok += 1;
      if (ok === 0) {
        toast({ title: 'Nessun pagamento completato', description: 'I pagamenti in sospeso non risultano ancora pagati.' });
        await reload();
        return;
      }
      toast({ title: 'Pagamenti verificati', description: `${ok} pagamenti completati.` });
      setTimeout(() => window.location.reload(), 1000);
    } finally {
      setVerifying(null);
    }
  };

  const buy = async (id: string) => {
    setBuying(id);
    try {
      const { url } = await startCheckout(id);
      if (!url) {
        toast({ title: 'URL di pagamento non ricevuto', description: 'URL di pagamento non valido', variant: 'destructive' });
        return;
      }
      window.location.assign(url);
    } catch (error) {
      toast({ title: 'Impossibile avviare il pagamento', description: errorMessage(error), variant: 'destructive' });
    } finally {
      setBuying(null);
    }
  };

  return (
    <div className="page">
      <header className="page-header">
        <h1>Crediti</h1>
        <p className="muted">
          {costs
            ? `Sfondo bianco (AI): ${creditCount(costs.background_removal)} a foto · sfondo creativo (AI): ${creditCount(costs.smart_backgrounds)} · ritocco del team grafico: ${creditCount(costs.background_removal_human)}.`
            : 'Ogni foto costa crediti secondo il tipo di elaborazione.'}{' '}
          I crediti valgono 365 giorni dall’acquisto.
        </p>
      </header>
      <section className="stat-grid three" aria-label="Riepilogo crediti">
        <Card role="group" aria-label="Crediti rimanenti">
          <p className="stat-label">Crediti rimanenti</p>
          <p className="stat-value">{me.data?.credits_remaining ?? '…'}</p>
        </Card>
        <Card role="group" aria-label="Scadenza">
          <p className="stat-label">Scadenza</p>
          <p className={`stat-value small ${expiry.soon ? 'text-warning' : ''}`}>{expiry.text}</p>
        </Card>
        <Card role="group" aria-label="Acquisti recenti">
          <p className="stat-label">Acquisti recenti</p>
          <p className="stat-value">{purchases.isSuccess ? allCompleted.length : '–'}</p>
        </Card>
      </section>

      <div className="grid-2">
        <Card>
          <CardHeader title="Acquista crediti" description="Scegli un pacchetto: il pagamento avviene su una pagina sicura." />
          {packages.isPending ? (
            <Spinner />
          ) : packages.isError || buyable.length === 0 ? (
            <p className="muted">Nessun pacchetto acquistabile al momento.</p>
          ) : (
            <ul className="package-list">
              {buyable.map((p) => (
                <li key={p.id} className="package-row">
                  <div>
                    <strong>{p.name}</strong>
                    {p.name.toLowerCase().includes('pro') ? <Badge tone="brand">Popolare</Badge> : null}
                    <p className="muted">
                      {creditCount(p.credits)} · {formatCents(p.price_cents / p.credits)} a credito
                    </p>
                  </div>
                  <button type="button" className="btn btn-primary btn-sm" disabled={buying !== null} onClick={() => void buy(p.id)}>
                    {formatCents(p.price_cents)}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </Card>
        <Card>
          <CardHeader title="Aggiorna saldo" description="Hai appena completato un pagamento? Aggiorna il saldo dei crediti." />
          <button type="button" className="btn btn-outline" onClick={() => void refresh()}>
            Aggiorna
          </button>
        </Card>
      </div>

      {pending.length > 0 ? (
        <Card role="region" aria-label="Pagamenti in sospeso">
          <CardHeader
            title="Pagamenti in sospeso"
            description="Hai pagato ma i crediti non sono arrivati? Verifica il pagamento."
          >
            <button type="button" className="btn btn-outline btn-sm" disabled={verifying !== null} onClick={() => void verifyAll()}>
              Verifica tutti
            </button>
          </CardHeader>
          <ul className="simple-list">
            {pending.map((p) => (
              <li key={p.id}>
                <span>
                  <strong>{purchaseName(p)}</strong> · {creditCount(p.credits_purchased)}
                </span>
                <span className="muted">{formatDate(p.created_at)}</span>
                <span>{formatCents(p.amount_paid_cents)}</span>
                <button type="button" className="btn btn-outline btn-sm" disabled={verifying !== null} onClick={() => void verifySingle(p)}>
                  {verifying === p.id ? 'Verifica…' : 'Verifica'}
                </button>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}

      <Card>
        <CardHeader title="Ultimi acquisti completati" />
        {purchases.isPending ? (
          <Spinner />
        ) : completed.length === 0 ? (
          <p className="muted">Nessun acquisto completato.</p>
        ) : (
          <ul className="simple-list">
            {completed.map((p) => (
              <li key={p.id}>
                <span>
                  <strong>{purchaseName(p)}</strong> · {creditCount(p.credits_purchased)}
                </span>
                <span className="muted">{formatDate(p.created_at)}</span>
                <span>{formatCents(p.amount_paid_cents)}</span>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
