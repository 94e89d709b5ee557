import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import { Progress } from '@/components/ui/progress';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/components/ui/toast';
import { errorMessage } from '@/lib/api-client';
import { creditCount, formatCents, formatDate } from '@/lib/format';
import { jobStatusLabel } from '@/lib/photos';
import type { CreditPurchase, Order } from '@/types/api';
import { downloadOrder, useOptionalPurchases, useOrderDetail, useOrders } from '../api/orders-api';

interface Row {
  id: string;
  orderId?: string;
  kind: 'order' | 'purchase';
  name: string;
  createdAt: string;
  status: string;
  total: number;
  processed: number;
  amount: string;
}

const STATUS: Record<string, { label: string; tone: BadgeTone }> = {
  completed: { label: 'Completato', tone: 'success' },
  pending: { label: 'In attesa', tone: 'warning' },
  expired: { label: 'Scaduto', tone: 'neutral' },
  canceled: { label: 'Annullato', tone: 'neutral' },
  processing: { label: 'In lavorazione', tone: 'info' },
  failed: { label: 'Errore', tone: 'danger' },
};

function toRows(orders: Order[], purchases: CreditPurchase[]): Row[] {
  const rows: Row[] = [
    ...orders.map((o) => ({
      id: `o-${o.id}`,
      orderId: o.id,
      kind: 'order' as const,
      name: o.package_type ?? 'Ordine',
      createdAt: o.created_at,
      status: o.status,
      total: o.total_photos ?? 0,
      processed: o.processed_photos ?? 0,
      // batches are paid in credits: total_amount counts the credits reserved for the batch
      amount: o.total_amount !== null ? creditCount(o.total_amount) : '–',
    })),
    ...purchases.map((p) => ({
      id: `p-${p.id}`,
      kind: 'purchase' as const,
      name: p.credit_packages?.name ?? p.package?.name ?? 'Acquisto crediti',
      createdAt: p.created_at,
      status: p.status,
      total: p.credits_purchased,
      processed: p.status === 'completed' ? p.credits_purchased : 0,
      amount: formatCents(p.amount_paid_cents),
    })),
  ];
  return rows.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Details (the order's photos) and Download (a ZIP of its completed photos) for one batch order. */
function OrderActions({ orderId, completed }: { orderId: string; completed: boolean }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const detail = useOrderDetail(orderId, open);

  async function download() {
    setBusy(true);
    try {
      await downloadOrder(orderId);
    } catch (error) {
      toast({ title: 'Errore download', description: errorMessage(error, 'Impossibile scaricare la foto'), variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <div className="order-actions">
        <button type="button" className="btn btn-outline btn-sm" aria-expanded={open} onClick={() => setOpen((v) => !v)}>
          Dettagli
        </button>
        {completed && (
          <button type="button" className="btn btn-primary btn-sm" disabled={busy} onClick={download}>
            Scarica
          </button>
        )}
      </div>
      {open &&
        (detail.isPending ? (
          <Spinner />
        ) : detail.isError ? (
          <p className="muted">{errorMessage(detail.error)}</p>
        ) : (
          <ul className="order-photos" aria-label="Foto dell'ordine">
            {detail.data.photos.map((p) => (
              <li key={p.id}>
                {p.jobs.at(-1)?.processing_details?.seo_filename ?? p.original_filename} · {jobStatusLabel(p.jobs.at(-1)?.status)}
              </li>
            ))}
          </ul>
        ))}
    </>
  );
}

export function OrdersPage() {
  const orders = useOrders();
  const purchases = useOptionalPurchases();
  const loading = orders.isPending || purchases.isPending;
  const rows = toRows(orders.data ?? [], purchases.data ?? []);

  return (
    <div className="page">
      <header className="page-header">
        <h1>Ordini</h1>
        <p className="muted">I tuoi ordini e gli acquisti di crediti, dal più recente.</p>
      </header>
      {loading ? (
        <Spinner />
      ) : rows.length === 0 ? (
        <Card className="empty-state">
          <h2>Nessun ordine</h2>
          <p>Non hai ancora ordini né acquisti di crediti.</p>
          <Link to="/credits" className="btn btn-primary">
            Acquista crediti
          </Link>
        </Card>
      ) : (
        <ul className="order-list">
          {rows.map((r) => {
            const s = STATUS[r.status] ?? { label: r.status, tone: 'neutral' as const };
            const pct = r.total > 0 ? (r.processed / r.total) * 100 : 0;
            return (
              <li key={r.id}>
                <Card className="order-card" aria-label={r.name}>
                  <div className="order-head">
                    <strong>{r.name}</strong>
                    <Badge tone={s.tone}>{s.label}</Badge>
                  </div>
                  <p className="muted">
                    {formatDate(r.createdAt)} · {r.kind === 'purchase' ? creditCount(r.total) : `${r.processed}/${r.total} foto`} · {r.amount}
                  </p>
                  <Progress value={pct} label={`Avanzamento ${r.name}`} />
                  {r.orderId && <OrderActions orderId={r.orderId} completed={r.status === 'completed'} />}
                </Card>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
