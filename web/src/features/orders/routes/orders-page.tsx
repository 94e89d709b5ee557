import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import { Progress } from '@/components/ui/progress';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/components/ui/toast';
import { errorMessage } from '@/lib/api-client';
import { countOf, creditCount, formatCents, formatDate } from '@/lib/format';
import { useConfig } from '@/lib/app-config';
import { jobStatusLabel, latestJob, resultDetails, shownJob, type StatusConfig } from '@/lib/photos';
import type { CreditPurchase, Order, Photo } from '@/types/api';
import { downloadOrder, useOptionalPurchases, useOrderDetail, useOrders } from '../api/orders-api';

interface Row {
  id: string;
  kind: 'order' | 'purchase';
  name: string;
  createdAt: string;
  status: string;
  total: number;
  processed: number;
  amount: string;
  /** Batch orders only: what became of the photos and the credits. */
  order?: Order;
}


/** "3 crediti spesi · 6 restituiti" once the batch has ended; "9 crediti previsti" while it runs. */
export function orderCredits(o: Pick<Order, 'status' | 'total_amount' | 'credits_spent' | 'credits_refunded'>): string {
  if (o.status !== 'completed') return countOf(o.total_amount, 'credito previsto', 'crediti previsti');
  const spent = countOf(o.credits_spent, 'credito speso', 'crediti spesi');
  return o.credits_refunded > 0 ? `${spent} · ${countOf(o.credits_refunded, 'restituito', 'restituiti')}` : spent;
}

/** "1 rifiutata dal grafico · 1 non riuscita", or '' when every photo was delivered or is on its way. */
export function orderProblems(o: Pick<Order, 'rejected_photos' | 'failed_photos'>): string {
  const parts: string[] = [];
  if (o.rejected_photos > 0) parts.push(countOf(o.rejected_photos, 'rifiutata dal grafico', 'rifiutate dal grafico'));
  if (o.failed_photos > 0) parts.push(countOf(o.failed_photos, 'non riuscita', 'non riuscite'));
  return parts.join(' · ');
}

/** The badge of a batch: an ended batch says whether all, some or none of its photos were delivered. */
function orderStatus(o: Order): { label: string; tone: BadgeTone } {
  if (o.status !== 'completed') return STATUS[o.status] ?? { label: o.status, tone: 'neutral' };
  if (o.processed_photos === 0) return { label: 'Nessuna foto consegnata', tone: 'danger' };
  if (o.processed_photos < o.total_photos) return { label: 'Completato in parte', tone: 'warning' };
  return STATUS.completed;
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
      kind: 'order' as const,
      name: o.package_type ?? 'Ordine',
      createdAt: o.created_at,
      status: o.status,
      total: o.total_photos ?? 0,
      processed: o.processed_photos ?? 0,
      // batches are paid in credits: what the ledger says they really cost
      amount: orderCredits(o),
      order: o,
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

/** What became of one photo of the order: its status, and why it was not delivered. */
function photoOutcome(p: Photo, config: StatusConfig | undefined): string {
  const job = shownJob(p);
  const label = jobStatusLabel(job?.status ?? null, config);
  if (job && config?.status_groups.ended_undelivered.includes(job.status)) {
    const why = job.error_message ? `: ${job.error_message}` : '';
    return `${label}${why} · crediti restituiti`;
  }
  const latest = latestJob(p);
  // a free rework the designers rejected: the delivered result stays, the rework is a note
  if (latest && job && latest.id !== job.id && latest.status === 'rejected_human') return `${label} · revisione gratuita non eseguita`;
  return label;
}

/** Details (each photo and its outcome) and Download (a ZIP of its delivered photos, only when there is one) for one batch order. */
function OrderActions({ orderId, downloadable }: { orderId: string; downloadable: boolean }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const detail = useOrderDetail(orderId, open);
  const config = useConfig().data;

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
        {downloadable && (
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
                <strong>{resultDetails(p)?.seo_filename ?? p.original_filename}</strong> · {photoOutcome(p, config)}
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
            const s = r.order ? orderStatus(r.order) : (STATUS[r.status] ?? { label: r.status, tone: 'neutral' as const });
            const problems = r.order ? orderProblems(r.order) : '';
            const pct = r.total > 0 ? (r.processed / r.total) * 100 : 0;
            return (
              <li key={r.id}>
                <Card className="order-card" aria-label={r.name}>
                  <div className="order-head">
                    <strong>{r.name}</strong>
                    <Badge tone={s.tone}>{s.label}</Badge>
                  </div>
                  <p className="muted">
                    {formatDate(r.createdAt)} · {r.kind === 'purchase' ? creditCount(r.total) : `${r.processed}/${r.total} foto consegnate`} · {r.amount}
                  </p>
                  {problems ? <p className="order-problems">{problems}</p> : null}
                  <Progress value={pct} label={`Avanzamento ${r.name}`} />
                  {r.order && <OrderActions orderId={r.order.id} downloadable={r.order.downloadable_photos > 0} />}
                </Card>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
