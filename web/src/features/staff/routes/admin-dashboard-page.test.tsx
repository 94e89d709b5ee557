import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { routes } from '@/app/router';
import { useSessionStore } from '@/stores/session';
import { callsTo, fakeServer } from '@/test/fake-server';
import { makeProfile } from '@/test/fixtures';
import { jsonResponse, renderRoutes, testSession } from '@/test/utils';
import type { AdminOverview, DesignerJob, DesignerLoad } from '../api/types';
import { utc } from '@/test/utc';

const overview: AdminOverview = {
  users_total: 42,
  users_without_credits: 3,
  photos_total: 310,
  jobs_by_status: { pending: 0, completed: 250, pending_human: 2, in_progress_human: 1 },
  pending_human_unassigned: 2,
  credits_sold: 500,
  credits_granted: 30,
  revenue_cents: 12500,
  jobs_needing_review: 4,
  needs_review_window_days: 7,
  currency: 'EUR',
};

const users = [
  makeProfile({ id: 'u1', email: 'mario@example.com', first_name: 'Mario', last_name: 'Rossi', credits_remaining: 15 }),
  makeProfile({ id: 'u2', email: 'anna@shop.it', first_name: 'Anna', last_name: 'Verdi', credits_remaining: 0, user_role: 'admin' }),
  makeProfile({ id: 'u3', email: 'luca@fotopronta.it', first_name: 'Luca', last_name: 'Neri', credits_remaining: 0, user_role: 'graphic' }),
];

function designer(overrides: Partial<DesignerLoad>): DesignerLoad {
  return {
    id: 'd1', first_name: 'Giulia', last_name: 'Bianchi', email: 'giulia@fotopronta.it', is_active: true,
    max_concurrent_jobs: 5, active_jobs: 2, completed_jobs: 10, is_full: false, specializations: null, ...overrides,
  };
}

const poolJob: DesignerJob = {
  id: 'j1', photo_id: 'p1', user_id: 'u1', job_type: 'background_removal_human', status: 'pending_human', priority: 4,
  deadline: null, overdue: true, assigned_to: null, client_notes: 'Togliere il riflesso', graphic_notes: null,
  started_at: null, completed_at: null, created_at: utc(2026, 3, 1, 10), original_filename: 'borsa.jpg',
  file_size: 300000, file_format: 'image/jpeg', width: null, height: null,
};

function setup(extra: Record<string, unknown> = {}) {
  useSessionStore.getState().setSession(testSession);
  return fakeServer({
    'GET /api/me': makeProfile({ id: 'a1', user_role: 'admin' }),
    'GET /api/notifications': [],
    'GET /api/admin/overview': overview,
    'GET /api/admin/users': (_init: RequestInit, url: URL) => {
      const q = (url.searchParams.get('q') ?? '').toLowerCase();
      const items = users.filter((u) => [u.email, u.first_name, u.last_name].some((s) => (s ?? '').toLowerCase().includes(q)));
      return jsonResponse({ items, total: items.length, page: Number(url.searchParams.get('page')), size: 20 });
    },
    'POST /api/admin/users/u2/credits': (init: RequestInit) => {
      const { amount } = JSON.parse(String(init.body)) as { amount: number };
      return jsonResponse({ purchase_id: 'pu1', credits_added: amount, profile: { ...users[1], credits_remaining: amount } });
    },
    'POST /api/admin/users/assign-missing-free-credits': { assigned: 2, user_ids: ['u1', 'u2'] },
    'GET /api/admin/designers': [
      designer({}),
      designer({ id: 'd2', first_name: 'Luca', last_name: 'Neri', email: 'luca@fotopronta.it', active_jobs: 5, is_full: true }),
      designer({ id: 'd3', first_name: 'Sara', last_name: 'Blu', email: 'sara@fotopronta.it', is_active: false, active_jobs: 0 }),
    ],
    'GET /api/admin/jobs': [poolJob],
    'POST /api/admin/jobs/j1/assign': () => jsonResponse({ ...poolJob, status: 'assigned_to_graphic', assigned_to: 'd1' }),
    'GET /api/admin/jobs/j1/timeline': {
      job_id: 'j1', workflow_id: 'photo-job-j1', run_id: 'r1', workflow_status: 'RUNNING', retries: 1, failures: 0,
      temporal_url: 'http://localhost:8233/namespaces/default/workflows/photo-job-j1/r1/history',
      steps: [
        { kind: 'started', label: 'Avvio del flusso', detail: null, outcome: 'ok', started_at: utc(2026, 3, 1, 10), ended_at: null, duration_ms: null, attempt: null, max_attempts: null },
        { kind: 'reserve_credits', label: 'Prenotazione crediti', detail: 'tentativo 1 fallito: database occupato', outcome: 'retry', started_at: utc(2026, 3, 1, 10, 0, 1), ended_at: null, duration_ms: null, attempt: 1, max_attempts: null },
        { kind: 'reserve_credits', label: 'Prenotazione crediti', detail: null, outcome: 'ok', started_at: utc(2026, 3, 1, 10, 0, 3), ended_at: new Date(Date.parse(utc(2026, 3, 1, 10, 0, 3)) + 20).toISOString(), duration_ms: 20, attempt: 2, max_attempts: null },
      ],
    },
    ...extra,
  });
}

describe('admin dashboard', () => {
  it('shows the overview counters', async () => {
    setup();
    renderRoutes(routes, ['/admin-dashboard']);
    expect(await screen.findByRole('heading', { name: 'Pannello di amministrazione' })).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Panoramica' })).toHaveAttribute('aria-selected', 'true');
    const cards = await screen.findByRole('list', { name: 'Indicatori' });
    expect(within(cards).getByText('Utenti totali').nextSibling).toHaveTextContent('42');
    expect(within(cards).getByText('Senza crediti').nextSibling).toHaveTextContent('3');
    expect(within(cards).getByText('Ricavi').nextSibling).toHaveTextContent('125,00');
    expect(within(cards).getByText('Risultati AI da verificare').nextSibling).toHaveTextContent('4');
    expect(within(cards).getByText('Segnalati dal ritocco automatico negli ultimi 7 giorni')).toBeInTheDocument();
    expect(within(screen.getByRole('list', { name: 'Lavori per stato' })).getByText('Completata')).toBeInTheDocument();
  });

  it('shows the SPEC §8 error when the overview cannot load', async () => {
    setup({ 'GET /api/admin/overview': () => jsonResponse({ detail: 'Database non raggiungibile.' }, 500) });
    renderRoutes(routes, ['/admin-dashboard']);
    expect(await screen.findByText('Riprova')).toBeInTheDocument();
    expect(screen.getAllByText('Errore nel caricamento dei dati della dashboard').length).toBeGreaterThanOrEqual(1);
  });

  it('searches users and adds credits (integer ≥ 1), and assigns the missing free credits', async () => {
    const server = setup();
    const user = userEvent.setup();
    renderRoutes(routes, ['/admin-dashboard']);
    await user.click(await screen.findByRole('tab', { name: 'Gestione utenti' }));
    expect(await screen.findByRole('row', { name: /mario@example.com/ })).toBeInTheDocument();
    // a designer's account has no seller pages: no credits offered
    const designerRow = screen.getByRole('row', { name: /luca@fotopronta.it/ });
    expect(within(designerRow).getByText('Grafico')).toBeInTheDocument();
    expect(within(designerRow).getByText('Non usa crediti')).toBeInTheDocument();
    expect(within(designerRow).queryByRole('button', { name: 'Aggiungi crediti' })).toBeNull();

    await user.type(screen.getByLabelText('Cerca utenti'), 'verdi');
    // the search is debounced: on a loaded machine the 1 s default of waitFor is not always enough
    await waitFor(() => expect(screen.queryByRole('row', { name: /mario@example.com/ })).not.toBeInTheDocument(), { timeout: 5_000 });
    expect(callsTo(server, 'GET', '/api/admin/users').some(([input]) => String(input).includes('q=verdi'))).toBe(true);
    const row = screen.getByRole('row', { name: /anna@shop.it/ });
    expect(within(row).getByText('Admin')).toBeInTheDocument(); // an admin also has the client area

    const amount = within(row).getByLabelText('Crediti da aggiungere a anna@shop.it');
    const add = within(row).getByRole('button', { name: 'Aggiungi crediti' });
    expect(add).toBeDisabled();
    await user.type(amount, '0');
    expect(add).toBeDisabled();
    await user.clear(amount);
    await user.type(amount, '25');
    expect(add).toBeEnabled();
    await user.click(add);
    await waitFor(() => expect(callsTo(server, 'POST', '/api/admin/users/u2/credits')).toHaveLength(1));
    expect(JSON.parse(String(callsTo(server, 'POST', '/api/admin/users/u2/credits')[0][1]?.body))).toEqual({ amount: 25 });
    expect(await screen.findByText('Crediti aggiunti')).toBeInTheDocument();
    expect(screen.getByText(/Nuovo saldo: 25/)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Assegna crediti gratuiti mancanti' }));
    expect(await screen.findByText('Crediti gratuiti assegnati a 2 utenti.')).toBeInTheDocument();
  });

  it('reports users and free-credit failures with the SPEC §8 titles', async () => {
    setup({
      'GET /api/admin/users': () => jsonResponse({ detail: 'Accesso negato.' }, 403),
      'POST /api/admin/users/assign-missing-free-credits': () => jsonResponse({ detail: 'Impossibile assegnare i crediti mancanti', code: 'assign_missing_failed' }, 500),
    });
    const user = userEvent.setup();
    renderRoutes(routes, ['/admin-dashboard']);
    await user.click(await screen.findByRole('tab', { name: 'Gestione utenti' }));
    expect((await screen.findAllByText('Impossibile caricare gli utenti')).length).toBeGreaterThanOrEqual(1);
    await user.click(screen.getByRole('button', { name: 'Assegna crediti gratuiti mancanti' }));
    await waitFor(() => expect(screen.getAllByText('Impossibile assegnare i crediti mancanti').length).toBeGreaterThanOrEqual(2));
  });

  it('shows designers’ load and assigns a pool job to an available designer, with its history', async () => {
    const server = setup();
    const user = userEvent.setup();
    renderRoutes(routes, ['/admin-dashboard']);
    await user.click(await screen.findByRole('tab', { name: 'Team grafici' }));

    const load = await screen.findByRole('list', { name: 'Carico dei grafici' });
    const luca = within(load).getByRole('listitem', { name: 'Luca Neri' });
    expect(within(luca).getByText('Al completo')).toBeInTheDocument();
    expect(within(luca).getByText('5/5')).toBeInTheDocument();
    expect(within(within(load).getByRole('listitem', { name: 'Sara Blu' })).getByText('Non attivo')).toBeInTheDocument();

    const job = await screen.findByRole('listitem', { name: 'borsa.jpg' });
    expect(within(job).getByText('Priorità 4')).toHaveClass('badge-danger');
    expect(within(job).getByText('In ritardo')).toBeInTheDocument();
    expect(within(job).getByText('Togliere il riflesso')).toBeInTheDocument();
    const chooser = within(job).getByLabelText('Grafico per borsa.jpg');
    // Only active designers with free capacity are offered.
    expect(within(chooser).getAllByRole('option').map((o) => o.textContent)).toEqual(['Scegli un grafico', 'Giulia Bianchi (2/5)']);
    const assign = within(job).getByRole('button', { name: 'Assegna' });
    expect(assign).toBeDisabled();
    await user.selectOptions(chooser, 'd1');
    await user.click(assign);
    await waitFor(() => expect(callsTo(server, 'POST', '/api/admin/jobs/j1/assign')).toHaveLength(1));
    expect(JSON.parse(String(callsTo(server, 'POST', '/api/admin/jobs/j1/assign')[0][1]?.body))).toEqual({ designer_id: 'd1' });
    expect(await screen.findByText('Lavoro assegnato')).toBeInTheDocument();

    const history = within(job).getByRole('button', { name: 'Storico' });
    await user.click(history);
    expect(history).toHaveAttribute('aria-expanded', 'true');
    const timeline = await within(job).findByRole('region', { name: 'Cronologia borsa.jpg' });
    expect(within(timeline).getAllByRole('listitem')).toHaveLength(3);
    expect(within(timeline).getAllByText('Prenotazione crediti')).toHaveLength(2);
    expect(within(timeline).getByText('tentativo 1 fallito: database occupato')).toBeInTheDocument();
    expect(within(timeline).getByText('1 tentativo ripetuto')).toBeInTheDocument();
    expect(within(timeline).getByRole('link', { name: 'Apri in Temporal' })).toHaveAttribute('href', 'http://localhost:8233/namespaces/default/workflows/photo-job-j1/r1/history');
  });

  it("shows the assignment error title and the server's detail", async () => {
    setup({
      'POST /api/admin/jobs/j1/assign': () => jsonResponse({ detail: 'Il grafico ha raggiunto la capacità massima.', code: 'designer_full' }, 409),
    });
    const user = userEvent.setup();
    renderRoutes(routes, ['/admin-dashboard']);
    await user.click(await screen.findByRole('tab', { name: 'Team grafici' }));
    const job = await screen.findByRole('listitem', { name: 'borsa.jpg' });
    await user.selectOptions(within(job).getByLabelText('Grafico per borsa.jpg'), 'd1');
    await user.click(within(job).getByRole('button', { name: 'Assegna' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent("Errore nell'assegnazione del lavoro");
    expect(alert).toHaveTextContent('Il grafico ha raggiunto la capacità massima.');
  });
});
