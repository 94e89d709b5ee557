import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { routes } from '@/app/router';
import { useSessionStore } from '@/stores/session';
import { callsTo, fakeServer } from '@/test/fake-server';
import { makeProfile } from '@/test/fixtures';
import { jsonResponse, renderRoutes, testSession } from '@/test/utils';
import type { DesignerJob } from '../api/types';
import { utc } from '@/test/utc';

const ME = 'g1';

function makeJob(overrides: Partial<DesignerJob> = {}): DesignerJob {
  return {
    id: 'j1',
    photo_id: 'p1',
    user_id: 'c1',
    job_type: 'background_removal_human',
    status: 'pending_human',
    priority: 1,
    deadline: null,
    overdue: false,
    assigned_to: null,
    client_notes: null,
    graphic_notes: null,
    started_at: null,
    completed_at: null,
    created_at: utc(2026, 3, 1, 10),
    original_filename: 'scarpa.jpg',
    file_size: 204800,
    file_format: 'image/jpeg',
    width: 1200,
    height: 900,
    ...overrides,
  };
}

function file(name: string, type: string, size?: number) {
  const f = new File(['x'], name, { type });
  if (size !== undefined) Object.defineProperty(f, 'size', { value: size });
  return f;
}

function setup(jobs: DesignerJob[], extra: Record<string, unknown> = {}) {
  useSessionStore.getState().setSession(testSession);
  URL.createObjectURL = vi.fn(() => 'blob:preview');
  URL.revokeObjectURL = vi.fn();
  const state = { jobs };
  const update = (id: string, patch: Partial<DesignerJob>) => {
    state.jobs = state.jobs.map((j) => (j.id === id ? { ...j, ...patch } : j));
    return jsonResponse(state.jobs.find((j) => j.id === id));
  };
  const server = fakeServer({
    'GET /api/me': makeProfile({ id: ME, user_role: 'graphic', first_name: 'Giulia', last_name: 'Bianchi' }),
    'GET /api/notifications': [],
    'GET /api/designer/jobs': () => jsonResponse(state.jobs),
    'POST /api/designer/jobs/j1/assign-to-me': () =>
      update('j1', { status: 'assigned_to_graphic', assigned_to: ME, deadline: new Date(Date.now() + 72 * 3600_000).toISOString() }),
    'POST /api/designer/jobs/j1/start': () => update('j1', { status: 'in_progress_human', started_at: new Date().toISOString() }),
    'GET /api/designer/jobs/j1/original': () => new Response('jpeg', { headers: { 'Content-Type': 'image/jpeg' } }),
    'POST /api/designer/jobs/j1/complete': () => {
      state.jobs = state.jobs.filter((j) => j.id !== 'j1');
      return jsonResponse(makeJob({ status: 'completed_human' }));
    },
    ...extra,
  });
  return { server, state };
}

describe('graphics dashboard', () => {
  it('shows the designer, counters and the queue by priority with badges, deadline and notes', async () => {
    setup([
      makeJob({ id: 'j1', priority: 1, original_filename: 'bassa.jpg', created_at: utc(2026, 3, 1, 8) }),
      makeJob({ id: 'j2', priority: 4, original_filename: 'urgente.jpg', client_notes: 'Sfondo bianco puro' }),
      makeJob({
        id: 'j3', priority: 2, original_filename: 'mia.jpg', status: 'assigned_to_graphic', assigned_to: ME,
        deadline: new Date(Date.now() - 3600_000).toISOString(),
      }),
      makeJob({ id: 'j4', priority: 2, original_filename: 'in-corso.jpg', status: 'in_progress_human', assigned_to: ME, created_at: utc(2026, 3, 2, 8) }),
    ]);
    const user = userEvent.setup();
    renderRoutes(routes, ['/graphics-dashboard']);

    expect(await screen.findByRole('heading', { name: 'Bacheca lavori' })).toBeInTheDocument();
    const list = await screen.findByRole('list', { name: 'Lavori' });
    expect(within(list).getAllByRole('listitem').map((li) => li.getAttribute('aria-label'))).toEqual(['urgente.jpg', 'mia.jpg', 'in-corso.jpg', 'bassa.jpg']);
    expect(screen.getByText('Giulia Bianchi')).toBeInTheDocument();
    expect(screen.getAllByText('Grafico').length).toBeGreaterThan(0);

    const summary = screen.getByRole('region', { name: 'Riepilogo lavori' });
    expect(within(summary).getByText('Totale').nextSibling).toHaveTextContent('4');
    expect(within(summary).getByText('In lavorazione').nextSibling).toHaveTextContent('1');
    expect(within(summary).getByText('Assegnati').nextSibling).toHaveTextContent('1');

    const urgent = screen.getByRole('listitem', { name: 'urgente.jpg' });
    expect(within(urgent).getByText('Priorità 4')).toHaveClass('badge-danger');
    expect(within(urgent).getByText('Sfondo bianco puro')).toBeInTheDocument();
    expect(within(urgent).getByRole('button', { name: 'Assegna a me' })).toBeInTheDocument();
    expect(within(screen.getByRole('listitem', { name: 'bassa.jpg' })).getByText('Priorità 1')).toHaveClass('badge-success');
    const mine = screen.getByRole('listitem', { name: 'mia.jpg' });
    expect(within(mine).getByText('Priorità 2')).toHaveClass('badge-warning');
    expect(within(mine).getByText('In ritardo')).toBeInTheDocument();
    expect(within(mine).getByText(/^Scadenza:/)).toHaveTextContent("Scadenza: circa un'ora fa");
    expect(within(mine).getByRole('button', { name: 'Inizia' })).toBeInTheDocument();
    expect(within(screen.getByRole('listitem', { name: 'in-corso.jpg' })).getByRole('button', { name: 'Completa' })).toBeInTheDocument();

    await user.selectOptions(screen.getByLabelText('Stato'), 'In lavorazione');
    expect(within(screen.getByRole('list', { name: 'Lavori' })).getAllByRole('listitem')).toHaveLength(1);
  });

  it('assigns to me, starts and completes with the SPEC §5 file checks', async () => {
    const { server } = setup([makeJob()]);
    const user = userEvent.setup({ applyAccept: false });
    renderRoutes(routes, ['/graphics-dashboard']);

    await user.click(await screen.findByRole('button', { name: 'Assegna a me' }));
    expect(callsTo(server, 'POST', '/api/designer/jobs/j1/assign-to-me')).toHaveLength(1);
    expect(await screen.findByText('Lavoro assegnato')).toBeInTheDocument();
    expect(await screen.findByText(/^Scadenza:/)).toHaveTextContent(/tra 3 giorni/);

    await user.click(await screen.findByRole('button', { name: 'Inizia' }));
    expect(callsTo(server, 'POST', '/api/designer/jobs/j1/start')).toHaveLength(1);

    await user.click(await screen.findByRole('button', { name: 'Completa' }));
    const dialog = await screen.findByRole('dialog', { name: 'Completa lavoro' });
    expect(await within(dialog).findByRole('img', { name: 'Originale: scarpa.jpg' })).toHaveAttribute('src', 'blob:preview');
    expect(callsTo(server, 'GET', '/api/designer/jobs/j1/original')).toHaveLength(1);
    const submit = within(dialog).getByRole('button', { name: 'Completa lavoro' });
    expect(submit).toBeDisabled();

    const input = within(dialog).getByLabelText('Foto elaborata');
    await user.upload(input, file('anim.gif', 'image/gif'));
    expect(await screen.findByText('Formato non supportato')).toBeInTheDocument();
    expect(screen.getByText('Sono ammessi solo file JPG, PNG e WebP')).toBeInTheDocument();
    expect(submit).toBeDisabled();

    await user.upload(input, file('enorme.png', 'image/png', 10485761));
    expect(await screen.findByText('File troppo grande')).toBeInTheDocument();
    expect(screen.getByText('Il file deve essere inferiore a 10MB')).toBeInTheDocument();
    expect(submit).toBeDisabled();

    // Only the first dropped file counts.
    const good = file('risultato.png', 'image/png', 10485760);
    fireEvent.drop(screen.getByTestId('result-dropzone'), { dataTransfer: { files: [good, file('altro.gif', 'image/gif')] } });
    expect(await within(dialog).findByRole('img', { name: 'Elaborata: risultato.png' })).toBeInTheDocument();
    expect(submit).toBeEnabled();

    await user.type(within(dialog).getByLabelText('Note per il cliente (facoltative)'), 'Ombra ammorbidita');
    await user.click(submit);
    await waitFor(() => expect(callsTo(server, 'POST', '/api/designer/jobs/j1/complete')).toHaveLength(1));
    const body = callsTo(server, 'POST', '/api/designer/jobs/j1/complete')[0][1]?.body as FormData;
    expect((body.get('file') as File).name).toBe('risultato.png');
    expect(body.get('notes')).toBe('Ombra ammorbidita');
    expect(await screen.findByText('Lavoro completato')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(await screen.findByText('Nessun lavoro')).toBeInTheDocument();
  });

  it('rejects an in-progress job only with a reason, after confirming it', async () => {
    const { server } = setup([makeJob({ status: 'in_progress_human', assigned_to: ME })], {
      'POST /api/designer/jobs/j1/reject': () => jsonResponse(makeJob({ status: 'rejected_human' })),
    });
    const user = userEvent.setup();
    renderRoutes(routes, ['/graphics-dashboard']);

    await user.click(await screen.findByRole('button', { name: 'Rifiuta' }));
    const dialog = screen.getByRole('dialog', { name: 'Rifiuta lavoro' });
    // no reason, or a blank one: refused here, nothing sent
    await user.click(within(dialog).getByRole('button', { name: 'Rifiuta lavoro' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Scrivi il motivo del rifiuto (almeno 5 caratteri)');
    await user.type(within(dialog).getByLabelText('Motivo del rifiuto (obbligatorio)'), '   ');
    await user.click(within(dialog).getByRole('button', { name: 'Rifiuta lavoro' }));
    expect(callsTo(server, 'POST', '/api/designer/jobs/j1/reject')).toHaveLength(0);
    // words, not a symbol name or digits
    for (const nonsense of ['__main__', '999999999']) {
      await user.clear(within(dialog).getByLabelText('Motivo del rifiuto (obbligatorio)'));
      await user.type(within(dialog).getByLabelText('Motivo del rifiuto (obbligatorio)'), nonsense);
      await user.click(within(dialog).getByRole('button', { name: 'Rifiuta lavoro' }));
      expect(within(dialog).getByRole('alert')).toHaveTextContent('Scrivi il motivo del rifiuto a parole');
    }
    expect(callsTo(server, 'POST', '/api/designer/jobs/j1/reject')).toHaveLength(0);
    await user.clear(within(dialog).getByLabelText('Motivo del rifiuto (obbligatorio)'));
    await user.type(within(dialog).getByLabelText('Motivo del rifiuto (obbligatorio)'), 'Foto troppo sfocata');
    await user.click(within(dialog).getByRole('button', { name: 'Rifiuta lavoro' }));
    // confirmation in the app's dialog, with the reason the client will read
    const confirm = screen.getByRole('dialog', { name: 'Confermi il rifiuto?' });
    expect(confirm).toHaveTextContent('Foto troppo sfocata');
    expect(callsTo(server, 'POST', '/api/designer/jobs/j1/reject')).toHaveLength(0);
    await user.click(within(confirm).getByRole('button', { name: 'Conferma rifiuto' }));
    await waitFor(() => expect(callsTo(server, 'POST', '/api/designer/jobs/j1/reject')).toHaveLength(1));
    expect(JSON.parse(String(callsTo(server, 'POST', '/api/designer/jobs/j1/reject')[0][1]?.body))).toEqual({ notes: 'Foto troppo sfocata' });
    expect(await screen.findByText('Lavoro rifiutato')).toBeInTheDocument();
  });

  it('shows the SPEC §8 title and the server detail when an action fails', async () => {
    setup([makeJob()], {
      'POST /api/designer/jobs/j1/assign-to-me': () =>
        jsonResponse({ detail: 'Hai già il numero massimo di lavori attivi.', code: 'designer_full' }, 409),
    });
    const user = userEvent.setup();
    renderRoutes(routes, ['/graphics-dashboard']);
    await user.click(await screen.findByRole('button', { name: 'Assegna a me' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Impossibile assegnare il lavoro');
    expect(alert).toHaveTextContent('Hai già il numero massimo di lavori attivi.');
  });

  it('says when the jobs cannot be loaded', async () => {
    setup([], { 'GET /api/designer/jobs': () => jsonResponse({ detail: 'Servizio non disponibile.', code: 'down' }, 503) });
    renderRoutes(routes, ['/graphics-dashboard']);
    expect(await screen.findByText('Riprova')).toBeInTheDocument();
    expect(screen.getAllByText('Impossibile caricare i lavori').length).toBeGreaterThanOrEqual(1);
    expect(screen.getAllByText('Servizio non disponibile.').length).toBeGreaterThanOrEqual(1);
  });
});
