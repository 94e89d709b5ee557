import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Copy, KeyRound } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { Badge } from '@/components/ui/badge';
import { Card, CardHeader } from '@/components/ui/card';
import { Dialog } from '@/components/ui/dialog';
import { Field } from '@/components/ui/field';
import { LoadErrorCard } from '@/components/ui/load-error-card';
import { FullPageSpinner } from '@/components/ui/spinner';
import { TableCard } from '@/components/ui/table-card';
import { toast } from '@/components/ui/toast';
import { errorMessage } from '@/lib/api-client';
import { formatDate, formatDateTime } from '@/lib/format';
import type { ApiKey, ApiKeyCreated, ApiKeyInput } from '@/types/api';
import { API_KEYS_QUERY_KEY, createApiKey, revokeApiKey, useApiKeys } from '../api/api-keys-api';
import { keyPlaceholder, quickstart, SNIPPET_LABELS, type SnippetLanguage } from '../lib/snippets';
import { WebhooksSection } from './webhooks-section';

type Scope = ApiKeyInput['scopes'] extends (infer S)[] | undefined ? S : never;

const SCOPES: { value: Scope; label: string }[] = [
  { value: 'jobs:write', label: 'Avviare lavori (jobs:write)' },
  { value: 'jobs:read', label: 'Leggere lavori e risultati (jobs:read)' },
  { value: 'webhooks:manage', label: 'Gestire i webhook (webhooks:manage)' },
];

async function copy(text: string, what: string) {
  try {
    await navigator.clipboard.writeText(text);
    toast({ title: `${what} copiata negli appunti` });
  } catch {
    toast({ title: 'Copia non riuscita', description: 'Seleziona il testo e copialo a mano.', variant: 'destructive' });
  }
}

function CreateKeyForm({ onCreated }: { onCreated: (key: ApiKeyCreated) => void }) {
  const queryClient = useQueryClient();
  const id = useId();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(SCOPES.map((s) => s.value));
  const [cap, setCap] = useState('');
  const create = useMutation({
    mutationFn: createApiKey,
    onSuccess: (key) => {
      setName('');
      setCap('');
      onCreated(key);
      return queryClient.invalidateQueries({ queryKey: API_KEYS_QUERY_KEY });
    },
    onError: (error) => toast({ title: 'Chiave non creata', description: errorMessage(error), variant: 'destructive' }),
  });
  const capValue = cap.trim() === '' ? null : Number(cap);
  const capInvalid = capValue !== null && (!Number.isInteger(capValue) || capValue < 1);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim() || scopes.length === 0 || capInvalid) return;
    create.mutate({ name: name.trim(), scopes, monthly_credit_cap: capValue, mode: 'live' });
  };
  return (
    <form className="form" aria-label="Nuova chiave API" onSubmit={submit}>
      <Field label="Nome della chiave" placeholder="Es. Shopify, PIM, script catalogo" maxLength={100} required value={name} onChange={(e) => setName(e.target.value)} />
      <fieldset className="scope-list">
        <legend>Permessi</legend>
        {SCOPES.map((scope) => (
          <label key={scope.value} className="checkbox-row">
            <input
              type="checkbox"
              checked={scopes.includes(scope.value)}
              onChange={(e) => setScopes((now) => (e.target.checked ? [...now, scope.value] : now.filter((s) => s !== scope.value)))}
            />
            {scope.label}
          </label>
        ))}
        {scopes.length === 0 ? <p className="form-error">Scegli almeno un permesso.</p> : null}
      </fieldset>
      <Field
        id={`${id}-cap`}
        label="Tetto mensile di crediti (facoltativo)"
        hint="Oltre questo numero di crediti in un mese la chiave non avvia altri lavori."
        type="number"
        min={1}
        inputMode="numeric"
        value={cap}
        onChange={(e) => setCap(e.target.value)}
      />
      {capInvalid ? <p className="form-error">Il tetto mensile è un numero intero di crediti, almeno 1.</p> : null}
      <button type="submit" className="btn btn-primary" disabled={create.isPending || !name.trim() || scopes.length === 0 || capInvalid}>
        <KeyRound size={16} aria-hidden="true" /> {create.isPending ? 'Creazione...' : 'Crea chiave'}
      </button>
    </form>
  );
}

function NewSecretDialog({ created, onClose }: { created: ApiKeyCreated; onClose: () => void }) {
  return (
    <Dialog title="La tua nuova chiave API" description="Copiala ora e conservala al sicuro: per sicurezza non la mostreremo più." onClose={onClose}>
      <div className="stack-lg">
        <code className="secret-box" aria-label="Chiave segreta">
          {created.secret}
        </code>
        <div className="dialog-actions">
          <button type="button" className="btn btn-outline" onClick={() => void copy(created.secret, 'Chiave')}>
            <Copy size={16} aria-hidden="true" /> Copia chiave
          </button>
          <button type="button" className="btn btn-primary" onClick={onClose}>
            Ho salvato la chiave
          </button>
        </div>
      </div>
    </Dialog>
  );
}

function RevokeDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => revokeApiKey(apiKey.id),
    onSuccess: async () => {
      toast({ title: 'Chiave revocata', description: `${apiKey.name}: le richieste con questa chiave vengono rifiutate.` });
      await queryClient.invalidateQueries({ queryKey: API_KEYS_QUERY_KEY });
      onClose();
    },
    onError: (error) => toast({ title: 'Revoca non riuscita', description: errorMessage(error), variant: 'destructive' }),
  });
  return (
    <Dialog title="Revocare la chiave?" description={`"${apiKey.name}" (${apiKey.prefix}…) smetterà di funzionare subito, per sempre.`} onClose={onClose}>
      <div className="dialog-actions">
        <button type="button" className="btn btn-outline" onClick={onClose} disabled={revoke.isPending}>
          Annulla
        </button>
        <button type="button" className="btn btn-danger" onClick={() => revoke.mutate()} disabled={revoke.isPending}>
          {revoke.isPending ? 'Revoca...' : 'Revoca chiave'}
        </button>
      </div>
    </Dialog>
  );
}

function scopeBadges(key: ApiKey) {
  return key.scopes.map((s) => (
    <Badge key={s} tone="info">
      {s}
    </Badge>
  ));
}

function KeysTable({ keys, onRevoke }: { keys: ApiKey[]; onRevoke: (key: ApiKey) => void }) {
  if (keys.length === 0) {
    return (
      <div className="empty-state">
        <p>Non hai ancora chiavi API: creane una per collegare il tuo negozio o il tuo gestionale.</p>
      </div>
    );
  }
  return (
    <TableCard>
      <table className="table table-cards" aria-label="Chiavi API">
        <thead>
          <tr>
            <th scope="col">Nome</th>
            <th scope="col">Chiave</th>
            <th scope="col">Permessi</th>
            <th scope="col">Crediti questo mese</th>
            <th scope="col">Creata</th>
            <th scope="col">Ultimo utilizzo</th>
            <th scope="col">Stato</th>
            <th scope="col">
              <span className="sr-only">Azioni</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <th scope="row">{key.name}</th>
              <td data-label="Chiave">
                <code>{key.prefix}…</code>
              </td>
              <td data-label="Permessi">{scopeBadges(key)}</td>
              <td data-label="Crediti questo mese">
                {key.credits_used_this_month}
                {key.monthly_credit_cap ? ` / ${key.monthly_credit_cap}` : ''}
              </td>
              <td data-label="Creata">{formatDate(key.created_at)}</td>
              <td data-label="Ultimo utilizzo">{key.last_used_at ? formatDateTime(key.last_used_at) : 'Mai usata'}</td>
              <td data-label="Stato">{key.revoked_at ? <Badge tone="danger">Revocata</Badge> : <Badge tone="success">Attiva</Badge>}</td>
              <td>
                {key.revoked_at ? null : (
                  <button type="button" className="btn btn-danger btn-sm" onClick={() => onRevoke(key)} aria-label={`Revoca ${key.name}`}>
                    Revoca
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableCard>
  );
}

function Quickstart({ secret, prefix }: { secret: string | null; prefix: string | undefined }) {
  const [language, setLanguage] = useState<SnippetLanguage>('curl');
  const baseUrl = window.location.origin;
  const code = quickstart(language, baseUrl, secret ?? keyPlaceholder(prefix));
  return (
    <Card>
      <CardHeader
        title="Guida rapida"
        description={
          secret
            ? 'Gli esempi contengono la chiave appena creata: copiali ora.'
            : 'Sostituisci la chiave con la tua (la vedi solo quando la crei).'
        }
      />
      <div className="tabs tabs-3" role="tablist" aria-label="Linguaggio">
        {(Object.keys(SNIPPET_LABELS) as SnippetLanguage[]).map((lang) => (
          <button key={lang} type="button" role="tab" aria-selected={language === lang} className={`tab${language === lang ? ' tab-active' : ''}`} onClick={() => setLanguage(lang)}>
            {SNIPPET_LABELS[lang]}
          </button>
        ))}
      </div>
      <pre className="code-block" aria-label={`Esempio ${SNIPPET_LABELS[language]}`}>
        <code>{code}</code>
      </pre>
      <div className="stack">
        <button type="button" className="btn btn-outline btn-sm" onClick={() => void copy(code, 'Guida rapida')}>
          <Copy size={14} aria-hidden="true" /> Copia esempio
        </button>
        <p className="muted">
          Riferimento interattivo:{' '}
          <a href="/v1/docs" target="_blank" rel="noreferrer">
            {baseUrl}/v1/docs
          </a>
          . Vieni da remove.bg? Usa <code>{baseUrl}/v1.0/removebg</code> con la tua chiave in <code>X-Api-Key</code>.
        </p>
      </div>
    </Card>
  );
}

/** 'Sviluppatori': the seller's API keys (create, list, revoke; the secret shown once), the
 * quickstart with the seller's own address and key, and the webhook endpoints with their logs. */
export function DevelopersPage() {
  const { data: keys, isPending, isError, error, refetch } = useApiKeys();
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [lastSecret, setLastSecret] = useState<ApiKeyCreated | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  if (isPending) return <FullPageSpinner />;
  if (isError) return <LoadErrorCard title="Impossibile caricare le chiavi API" error={error} onRetry={() => void refetch()} />;
  const active = keys.filter((k) => !k.revoked_at);

  return (
    <div className="page">
      <header className="page-header">
        <h1>Sviluppatori</h1>
        <p className="muted">Collega il tuo negozio, il gestionale o uno script all&apos;API di FotoPronta: gli stessi lavori, crediti e risultati dell&apos;app.</p>
      </header>
      <div className="developers-grid">
        <Card>
          <CardHeader title="Nuova chiave API" description="La chiave segreta viene mostrata una sola volta." />
          <CreateKeyForm
            onCreated={(key) => {
              setCreated(key);
              setLastSecret(key);
            }}
          />
        </Card>
        <Quickstart secret={lastSecret?.secret ?? null} prefix={lastSecret?.prefix ?? active[0]?.prefix} />
      </div>
      <section aria-label="Le tue chiavi" className="stack-lg developer-keys">
        <h2>Le tue chiavi</h2>
        <KeysTable keys={keys} onRevoke={setRevoking} />
      </section>
      <WebhooksSection />
      {created ? <NewSecretDialog created={created} onClose={() => setCreated(null)} /> : null}
      {revoking ? <RevokeDialog apiKey={revoking} onClose={() => setRevoking(null)} /> : null}
    </div>
  );
}
