import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Badge } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import { TableCard } from '@/components/ui/table-card';
import { LoadErrorCard } from '@/components/ui/load-error-card';
import { Spinner } from '@/components/ui/spinner';
import { toast } from '@/components/ui/toast';
import { errorMessage, errorTitle } from '@/lib/api-client';
import { roleLabel } from '@/lib/auth';
import { creditCount, daysUntil, formatDate } from '@/lib/format';
import { useOnChange } from '@/lib/use-on-change';
import { ADMIN_KEY, addCredits, assignMissingFreeCredits, useUsersPage } from '../api/admin-api';
import { parseCreditAmount } from '../lib/jobs';
import type { AdminUserRow } from '../api/types';
import { Pagination, SortableHeader, type SortState } from './table-controls';

const PAGE_SIZE = 20;

const SEARCH_DELAY_MS = 300;

function useDebounced(value: string, ms: number) {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return debounced;
}

function Expiry({ date }: { date: string | null }) {
  if (!date) return <span className="muted">Non impostata</span>;
  const days = daysUntil(date);
  const soon = days !== null && days <= 30;
  return (
    <time dateTime={date} className={soon ? 'text-warning' : undefined}>
      {days !== null && days < 0 ? `Scaduti il ${formatDate(date)}` : formatDate(date)}
    </time>
  );
}

/** An e-mail address that may wrap only before its '@' (never inside the name or the domain), so
 * the column keeps the width of its parts. */
function EmailParts({ email }: { email: string }) {
  const at = email.lastIndexOf('@');
  if (at <= 0) return <span className="nowrap">{email}</span>;
  return (
    <>
      <span className="nowrap">{email.slice(0, at)}</span>
      <wbr />
      <span className="nowrap">{email.slice(at)}</span>
    </>
  );
}

/** 'Aggiungi crediti' for one user: an integer ≥ 1 (SPEC §5); the button is disabled otherwise. */
function AddCreditsForm({ user }: { user: AdminUserRow }) {
  const queryClient = useQueryClient();
  const [value, setValue] = useState('');
  const amount = parseCreditAmount(value);
  const mutation = useMutation({
    mutationFn: (n: number) => addCredits(user.id, n),
    onSuccess: (out) => {
      setValue('');
      toast({ title: 'Crediti aggiunti', description: `${creditCount(out.credits_added)} a ${user.email}. Nuovo saldo: ${out.profile.credits_remaining}` });
    },
    onError: (error) => toast({ title: errorTitle(error, 'Errore assegnazione crediti'), description: errorMessage(error), variant: 'destructive' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ADMIN_KEY }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (amount !== null) mutation.mutate(amount);
  };
  return (
    <form className="credit-form" onSubmit={submit} aria-label={`Aggiungi crediti a ${user.email}`}>
      <input
        type="number"
        className="input"
        min={1}
        step={1}
        inputMode="numeric"
        placeholder="0"
        aria-label={`Crediti da aggiungere a ${user.email}`}
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <button type="submit" className="btn btn-primary btn-sm" disabled={amount === null || mutation.isPending}>
        Aggiungi crediti
      </button>
    </form>
  );
}

/** Users tab: search, the user table (server-side pages of 20, sortable columns) with per-user credit
 * grants, and the missing free credits. */
export function AdminUsersTab() {
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const q = useDebounced(search, SEARCH_DELAY_MS);
  const [sort, setSort] = useState<SortState>({ sort: 'created_at', order: 'desc' });
  const [page, setPage] = useState(1);
  useOnChange([q, sort], () => setPage(1));
  const users = useUsersPage({ q, sort: sort.sort, order: sort.order, page, size: PAGE_SIZE });
  const header = (label: string, column: string) => <SortableHeader label={label} column={column} state={sort} onSort={setSort} />;

  useEffect(() => {
    if (users.isError) toast({ title: 'Impossibile caricare gli utenti', description: errorMessage(users.error), variant: 'destructive' });
  }, [users.isError]); // eslint-disable-line react-hooks/exhaustive-deps

  const assignMissing = useMutation({
    mutationFn: assignMissingFreeCredits,
    onSuccess: (out) =>
      toast({
        title: 'Crediti gratuiti assegnati',
        description: out.assigned === 0 ? 'Tutti gli utenti avevano già i crediti gratuiti.' : `Crediti gratuiti assegnati a ${out.assigned} ${out.assigned === 1 ? 'utente' : 'utenti'}.`,
      }),
    onError: (error) => toast({ title: 'Impossibile assegnare i crediti mancanti', description: errorMessage(error), variant: 'destructive' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ADMIN_KEY }),
  });

  const rows = users.data?.items ?? [];
  return (
    <div className="stack-lg">
      <Card className="photos-toolbar">
        <div className="field grow">
          <label htmlFor="user-search">Cerca utenti</label>
          <input id="user-search" type="search" className="input" placeholder="Email, nome o cognome" value={search} onChange={(e) => setSearch(e.target.value)} />
        </div>
        <button type="button" className="btn btn-outline" onClick={() => assignMissing.mutate()} disabled={assignMissing.isPending}>
          {assignMissing.isPending ? 'Assegnazione...' : 'Assegna crediti gratuiti mancanti'}
        </button>
      </Card>

      {users.isPending ? (
        <Spinner label="Caricamento utenti..." />
      ) : users.isError ? (
        <LoadErrorCard title={'Impossibile caricare gli utenti'} error={users.error} onRetry={() => void users.refetch()} />
      ) : rows.length === 0 ? (
        <Card className="empty-state">
          <p>Nessun utente trovato.</p>
        </Card>
      ) : (
        <TableCard className="users-table-card">
          <table className="table table-cards">
            <caption className="sr-only">Utenti</caption>
            <thead>
              <tr>
                {header('Email', 'email')}
                {header('Nome', 'name')}
                {header('Ruolo', 'user_role')}
                {header('Crediti', 'credits_remaining')}
                {header('Scadenza', 'credits_expiry_date')}
                {header('Registrato', 'created_at')}
                <th scope="col">Aggiungi crediti</th>
              </tr>
            </thead>
            <tbody aria-busy={users.isFetching}>
              {rows.map((u) => (
                <tr key={u.id}>
                  <th scope="row" className="cell-email">
                    <EmailParts email={u.email} />
                  </th>
                  <td data-label="Nome">{/* the name as the user typed it: data, isolated from the page's text direction */}
                    {[u.first_name, u.last_name].filter(Boolean).join(' ') ? <bdi className="user-text">{[u.first_name, u.last_name].filter(Boolean).join(' ')}</bdi> : <span className="muted">—</span>}</td>
                  <td data-label="Ruolo">
                    <Badge tone={u.user_role === 'admin' ? 'brand' : u.user_role === 'graphic' ? 'info' : 'neutral'}>{roleLabel(u.user_role)}</Badge>
                    {u.is_active === false ? <Badge tone="danger">Non attivo</Badge> : null}
                  </td>
                  <td data-label="Crediti">{u.credits_remaining}</td>
                  <td data-label="Scadenza">
                    <Expiry date={u.credits_expiry_date} />
                  </td>
                  <td data-label="Registrato">
                    <time dateTime={u.created_at}>{formatDate(u.created_at)}</time>
                  </td>
                  <td data-label="Aggiungi crediti">
                    {/* an active designer's account has no seller pages: no credits to give (the server refuses too) */}
                    {u.user_role === 'graphic' && u.is_active !== false ? <span className="muted">Non usa crediti</span> : <AddCreditsForm user={u} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pagination label="Pagine degli utenti" page={page} size={PAGE_SIZE} total={users.data?.total ?? 0} onPage={setPage} />
        </TableCard>
      )}
    </div>
  );
}
