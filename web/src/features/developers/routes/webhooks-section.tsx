import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Copy, Webhook } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Badge } from '@/components/ui/badge';
import { Card, CardHeader } from '@/components/ui/card';
import { Dialog } from '@/components/ui/dialog';
import { Field } from '@/components/ui/field';
import { TableCard } from '@/components/ui/table-card';
import { toast } from '@/components/ui/toast';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import type { WebhookDelivery, WebhookEndpoint, WebhookEndpointCreated, WebhookEndpointInput } from '@/types/api';
import {
  WEBHOOKS_QUERY_KEY,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  retryWebhookDelivery,
  rotateWebhookSecret,
  useWebhookDeliveries,
  useWebhookEndpoints,
} from '../api/webhooks-api';

type EventType = WebhookEndpointInput['events'][number];

const EVENTS: { value: EventType; label: string }[] = [
  { value: 'job.completed', label: 'Lavoro completato (job.completed)' },
  { value: 'job.failed', label: 'Lavoro non riuscito (job.failed)' },
  { value: 'job.needs_review', label: 'Risultato da controllare (job.needs_review)' },
  { value: 'job.waiting_for_credits', label: 'In attesa di crediti (job.waiting_for_credits)' },
  { value: 'job.assigned_to_designer', label: 'Preso in carico da un grafico (job.assigned_to_designer)' },
  { value: 'job.rework_rejected', label: 'Revisione rifiutata (job.rework_rejected)' },
  { value: 'batch.completed', label: 'Lotto completato (batch.completed)' },
  { value: 'credits.low', label: 'Crediti in esaurimento (credits.low)' },
];

const DELIVERY_STATUS: Record<WebhookDelivery['status'], { label: string; tone: 'success' | 'danger' | 'warning' }> = {
  succeeded: { label: 'Consegnato', tone: 'success' },
  failed: { label: 'Non consegnato', tone: 'danger' },
  pending: { label: 'In corso', tone: 'warning' },
};

async function copy(text: string) {
  try {
    await navigator.clipboard.writeText(text);
    toast({ title: 'Segreto copiato negli appunti' });
  } catch {
    toast({ title: 'Copia non riuscita', description: 'Seleziona il testo e copialo a mano.', variant: 'destructive' });
  }
}

function CreateEndpointForm({ onCreated }: { onCreated: (endpoint: WebhookEndpointCreated) => void }) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>(['job.completed', 'job.failed']);
  const create = useMutation({
    mutationFn: createWebhookEndpoint,
    onSuccess: (endpoint) => {
      setUrl('');
      onCreated(endpoint);
      return queryClient.invalidateQueries({ queryKey: WEBHOOKS_QUERY_KEY });
    },
    onError: (error) => toast({ title: 'Endpoint non registrato', description: errorMessage(error), variant: 'destructive' }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!url.trim() || events.length === 0) return;
    create.mutate({ url: url.trim(), events });
  };
  return (
    <form className="form" aria-label="Nuovo endpoint webhook" onSubmit={submit}>
      <Field label="URL dell'endpoint" placeholder="https://negozio.example.com/webhook/fotopronta" type="url" maxLength={2048} required value={url} onChange={(e) => setUrl(e.target.value)} />
      <fieldset className="scope-list">
        <legend>Eventi</legend>
        {EVENTS.map((event) => (
          <label key={event.value} className="checkbox-row">
            <input
              type="checkbox"
              checked={events.includes(event.value)}
              onChange={(e) => setEvents((now) => (e.target.checked ? [...now, event.value] : now.filter((v) => v !== event.value)))}
            />
            {event.label}
          </label>
        ))}
        {events.length === 0 ? <p className="form-error">Scegli almeno un evento.</p> : null}
      </fieldset>
      <button type="submit" className="btn btn-primary" disabled={create.isPending || !url.trim() || events.length === 0}>
        <Webhook size={16} aria-hidden="true" /> {create.isPending ? 'Registrazione...' : 'Registra endpoint'}
      </button>
    </form>
  );
}

function SecretDialog({ endpoint, rotated, onClose }: { endpoint: WebhookEndpointCreated; rotated: boolean; onClose: () => void }) {
  return (
    <Dialog
      title={rotated ? 'Il nuovo segreto di firma' : 'Il segreto di firma del webhook'}
      description={
        rotated
          ? 'Copialo ora: non lo mostreremo più. Per 24 ore ogni invio è firmato sia con il nuovo sia con il vecchio segreto.'
          : 'Copialo ora e conservalo al sicuro: serve a verificare la firma degli invii e non lo mostreremo più.'
      }
      onClose={onClose}
    >
      <div className="stack-lg">
        <code className="secret-box" aria-label="Segreto di firma">
          {endpoint.secret}
        </code>
        <div className="dialog-actions">
          <button type="button" className="btn btn-outline" onClick={() => void copy(endpoint.secret)}>
            <Copy size={16} aria-hidden="true" /> Copia segreto
          </button>
          <button type="button" className="btn btn-primary" onClick={onClose}>
            Ho salvato il segreto
          </button>
        </div>
      </div>
    </Dialog>
  );
}

function DeliveryLog({ endpoint }: { endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const { data, isPending, isError } = useWebhookDeliveries(endpoint.id);
  const retry = useMutation({
    mutationFn: retryWebhookDelivery,
    onSuccess: () => {
      toast({ title: 'Invio ripetuto', description: 'Il registro si aggiorna tra pochi secondi.' });
      return queryClient.invalidateQueries({ queryKey: [...WEBHOOKS_QUERY_KEY, endpoint.id, 'deliveries'] });
    },
    onError: (error) => toast({ title: 'Reinvio non riuscito', description: errorMessage(error), variant: 'destructive' }),
  });
  if (isPending) return <p className="muted">Caricamento del registro...</p>;
  if (isError) return <p className="form-error">Impossibile caricare il registro degli invii.</p>;
  if (data.data.length === 0) return <p className="muted">Nessun invio ancora: gli eventi dei tuoi lavori compariranno qui.</p>;
  return (
    <TableCard>
      <table className="table table-cards" aria-label={`Registro invii di ${endpoint.url}`}>
        <thead>
          <tr>
            <th scope="col">Evento</th>
            <th scope="col">Stato</th>
            <th scope="col">Tentativi</th>
            <th scope="col">Prossimo tentativo</th>
            <th scope="col">
              <span className="sr-only">Azioni</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {data.data.map((delivery) => {
            const status = DELIVERY_STATUS[delivery.status];
            return (
              <tr key={delivery.id}>
                <th scope="row">
                  <code>{delivery.event_type}</code>
                  <div className="muted">{formatDateTime(delivery.created_at)}</div>
                </th>
                <td data-label="Stato">
                  <Badge tone={status.tone}>{status.label}</Badge>
                </td>
                <td data-label="Tentativi">
                  {delivery.attempts.length === 0
                    ? '—'
                    : delivery.attempts
                        .map((a) => `${a.status_code ?? 'nessuna risposta'}${a.response_ms !== null ? ` (${a.response_ms} ms)` : ''}`)
                        .join(', ')}
                </td>
                <td data-label="Prossimo tentativo">{delivery.next_attempt_at ? formatDateTime(delivery.next_attempt_at) : '—'}</td>
                <td>
                  <button type="button" className="btn btn-outline btn-sm" disabled={retry.isPending} onClick={() => retry.mutate(delivery.id)} aria-label={`Reinvia ${delivery.event_type}`}>
                    Reinvia
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableCard>
  );
}

function EndpointCard({ endpoint, onSecret }: { endpoint: WebhookEndpoint; onSecret: (e: WebhookEndpointCreated) => void }) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: WEBHOOKS_QUERY_KEY });
  const rotate = useMutation({
    mutationFn: () => rotateWebhookSecret(endpoint.id),
    onSuccess: (rotated) => onSecret(rotated),
    onError: (error) => toast({ title: 'Rotazione non riuscita', description: errorMessage(error), variant: 'destructive' }),
  });
  const remove = useMutation({
    mutationFn: () => deleteWebhookEndpoint(endpoint.id),
    onSuccess: () => {
      toast({ title: 'Endpoint eliminato' });
      return refresh();
    },
    onError: (error) => toast({ title: 'Eliminazione non riuscita', description: errorMessage(error), variant: 'destructive' }),
  });
  const disabled = endpoint.status === 'disabled';
  return (
    <Card>
      <CardHeader title={endpoint.url} description={endpoint.events.join(', ')} />
      <div className="stack">
        {disabled ? (
          <p className="form-error" role="status">
            <Badge tone="danger">Disattivato</Badge>{' '}
            {endpoint.disabled_reason === 'gone'
              ? 'Il server ha risposto 410 (Gone): non riceve più eventi. Registralo di nuovo per riattivarlo.'
              : 'Il server non ha risposto correttamente per tre giorni: non riceve più eventi. Registralo di nuovo per riattivarlo.'}
          </p>
        ) : (
          <Badge tone="success">Attivo</Badge>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn btn-outline btn-sm" disabled={rotate.isPending} onClick={() => rotate.mutate()}>
            Ruota il segreto
          </button>
          <button type="button" className="btn btn-danger btn-sm" disabled={remove.isPending} onClick={() => remove.mutate()}>
            Elimina endpoint
          </button>
        </div>
        <h3>Registro invii</h3>
        <DeliveryLog endpoint={endpoint} />
      </div>
    </Card>
  );
}

/** 'Sviluppatori' → Webhook: register endpoints (the signing secret shown once), watch each endpoint's
 * delivery log, resend a delivery, rotate the secret, delete. */
export function WebhooksSection() {
  const { data: endpoints, isPending, isError } = useWebhookEndpoints();
  const [secret, setSecret] = useState<{ endpoint: WebhookEndpointCreated; rotated: boolean } | null>(null);
  return (
    <section aria-label="Webhook" className="stack-lg developer-webhooks">
      <h2>Webhook</h2>
      <p className="muted">
        Ricevi un avviso firmato (Standard Webhooks) quando un lavoro cambia stato, invece di interrogare l&apos;API. Gli invii non riusciti
        vengono ripetuti per circa tre giorni.
      </p>
      <Card>
        <CardHeader title="Nuovo endpoint" description="Un URL pubblico https del tuo server che riceve gli eventi in POST." />
        <CreateEndpointForm onCreated={(endpoint) => setSecret({ endpoint, rotated: false })} />
      </Card>
      {isPending ? <p className="muted">Caricamento degli endpoint...</p> : null}
      {isError ? <p className="form-error">Impossibile caricare gli endpoint webhook.</p> : null}
      {endpoints?.map((endpoint) => (
        <EndpointCard key={endpoint.id} endpoint={endpoint} onSecret={(rotated) => setSecret({ endpoint: rotated, rotated: true })} />
      ))}
      {secret ? <SecretDialog endpoint={secret.endpoint} rotated={secret.rotated} onClose={() => setSecret(null)} /> : null}
    </section>
  );
}
