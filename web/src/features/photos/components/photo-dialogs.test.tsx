import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { routes } from '@/app/router';
import { useSessionStore } from '@/stores/session';
import { callsTo, fakeServer } from '@/test/fake-server';
import { makePhoto, makeProfile, photoListHandler } from '@/test/fixtures';
import { renderRoutes, testSession } from '@/test/utils';

/** The app's dialog, never window.confirm/prompt, for delete and free rework. */
describe('photo dialogs', () => {
  beforeEach(() => {
    useSessionStore.getState().setSession(testSession);
    vi.spyOn(window, 'confirm').mockImplementation(() => {
      throw new Error('window.confirm');
    });
    vi.spyOn(window, 'prompt').mockImplementation(() => {
      throw new Error('window.prompt');
    });
  });

  it('asks in a dialog before deleting; Annulla deletes nothing', async () => {
    const server = fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/notifications': [],
      'GET /api/photos': photoListHandler([makePhoto()]),
      'DELETE /api/photos/p1': { ok: true },
    });
    const user = userEvent.setup();
    renderRoutes(routes, ['/photos']);
    const card = await screen.findByRole('article', { name: 'nike-scarpa-running-rossa.jpg' });
    await user.click(within(card).getByRole('button', { name: /^Elimina / }));
    let dialog = screen.getByRole('dialog', { name: 'Eliminare la foto?' });
    expect(within(dialog).getByRole('button', { name: 'Annulla' })).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Annulla' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(callsTo(server, 'DELETE', '/api/photos/p1')).toHaveLength(0);

    await user.click(within(card).getByRole('button', { name: /^Elimina / }));
    dialog = screen.getByRole('dialog', { name: 'Eliminare la foto?' });
    await user.click(within(dialog).getByRole('button', { name: /^Elimina$/ }));
    await waitFor(() => expect(callsTo(server, 'DELETE', '/api/photos/p1')).toHaveLength(1));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(await screen.findByText('Foto eliminata')).toBeInTheDocument();
  });

  it('asks what to improve in a dialog for the free rework; Annulla sends nothing', async () => {
    const server = fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/notifications': [],
      'GET /api/photos': photoListHandler([makePhoto({ can_rework: true }, { completed_at: new Date(Date.now() - 60_000).toISOString() })]),
      'POST /api/photos/p1/rework': { ok: true },
    });
    const user = userEvent.setup();
    renderRoutes(routes, ['/photos']);
    const card = await screen.findByRole('article', { name: 'nike-scarpa-running-rossa.jpg' });
    await user.click(within(card).getByRole('button', { name: 'Revisione gratuita' }));
    let dialog = screen.getByRole('dialog', { name: 'Revisione gratuita' });
    await user.click(within(dialog).getByRole('button', { name: 'Annulla' }));
    expect(callsTo(server, 'POST', '/api/photos/p1/rework')).toHaveLength(0);

    await user.click(within(card).getByRole('button', { name: 'Revisione gratuita' }));
    dialog = screen.getByRole('dialog', { name: 'Revisione gratuita' });
    const notes = within(dialog).getByLabelText('Cosa vorresti migliorare in questa foto? (facoltativo)');
    expect(notes).toHaveFocus();
    await user.type(notes, 'ombra più morbida');
    await user.click(within(dialog).getByRole('button', { name: 'Richiedi revisione' }));
    await waitFor(() => expect(callsTo(server, 'POST', '/api/photos/p1/rework')).toHaveLength(1));
    const [, init] = callsTo(server, 'POST', '/api/photos/p1/rework')[0];
    expect(JSON.parse(String((init as RequestInit).body))).toEqual({ notes: 'ombra più morbida' });
    expect(await screen.findByText('Revisione richiesta')).toBeInTheDocument();
  });
});
