import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import { Progress } from '@/components/ui/progress';
import { Spinner } from '@/components/ui/spinner';
import { api } from '@/lib/api-client';
import { formatCents, formatDate, formatEuro } from '@/lib/format';
import type { CreditPurchase, Order } from '@/types/api';

interface Row {
  id: string;
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
  processing: { label: 'In lavorazione', tone: 'info' },
  failed: { label: 'Errore', tone: 'danger' },
};

/** A list endpoint that may not exist yet: answers [] instead of failing the page. */
async function optionalList<T>(path: string): Promise<T[]> {
  try {
    const data = await api<T[]>(path);
    return Array.isArray(data) ? data : [];
  } catch {
    return [];
  }
}

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
      amount: o.total_amount !== null ? formatEuro(o.total_amount) : '–',
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

export function OrdersPage() {
  const orders = useQuery({ queryKey: ['orders'], queryFn: () => optionalList<Order>('/api/orders') });
  const purchases = useQuery({ queryKey: ['credit-purchases-optional'], queryFn: () => optionalList<CreditPurchase>('/api/credits/purchases') });
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
                    {formatDate(r.createdAt)} · {r.kind === 'purchase' ? `${r.total} crediti` : `${r.processed}/${r.total} foto`} · {r.amount}
                  </p>
                  <Progress value={pct} label={`Avanzamento ${r.name}`} />
                </Card>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
