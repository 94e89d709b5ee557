import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { routes } from '@/app/router';
import { useSessionStore } from '@/stores/session';
import { callsTo, fakeServer } from '@/test/fake-server';
import { makePhoto, makeProfile, photoListHandler } from '@/test/fixtures';
import { renderRoutes, testSession } from '@/test/utils';

// 30 delivered photos, newest first, plus 2 failed: more than one page of 24
const photos = [
  ...Array.from({ length: 30 }, (_, i) => makePhoto({ id: `p${i}`, original_filename: `foto-${String(i).padStart(2, '0')}.jpg` }, { processing_details: null })),
  makePhoto({ id: 'f1', original_filename: 'rotta-1.jpg', status: 'uploaded', processed_path: null }, { status: 'failed', error_message: 'Immagine non valida', processing_details: null }),
  makePhoto({ id: 'f2', original_filename: 'rotta-2.jpg', status: 'uploaded', processed_path: null }, { status: 'failed', error_message: 'Immagine non valida', processing_details: null }),
];

function setup(extra: Record<string, unknown> = {}) {
  useSessionStore.getState().setSession(testSession);
  return fakeServer({ 'GET /api/me': makeProfile(), 'GET /api/notifications': [], 'GET /api/photos': photoListHandler(photos), ...extra });
}

const listCalls = (server: ReturnType<typeof setup>) =>
  callsTo(server, 'GET', '/api/photos').map(([input]) => new URL(String(input), 'http://localhost').searchParams);

describe('/photos with the paginated API', () => {
  it('shows the first 24, the summary from counts, and the next page on Carica altre', async () => {
    const server = setup();
    const user = userEvent.setup();
    renderRoutes(routes, ['/photos']);

    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(24));
    expect(screen.getByText(/32 foto · 30 completate · 0 in elaborazione/)).toBeInTheDocument();
    expect(listCalls(server)[0].get('limit')).toBeNull(); // the server's page size (photos_page_size)

    await user.click(screen.getByRole('button', { name: 'Carica altre' }));
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(32));
    expect(listCalls(server).at(-1)?.get('cursor')).toBe('24');
    expect(screen.queryByRole('button', { name: 'Carica altre' })).toBeNull();
  });

  it('sends the search and the status filter to the server', async () => {
    const server = setup();
    const user = userEvent.setup();
    renderRoutes(routes, ['/photos']);
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(24));

    await user.type(screen.getByLabelText('Cerca per nome file'), 'rotta');
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(2));
    expect(listCalls(server).at(-1)?.get('q')).toBe('rotta');

    await user.clear(screen.getByLabelText('Cerca per nome file'));
    await user.selectOptions(screen.getByLabelText('Stato'), 'failed');
    await waitFor(() => expect(listCalls(server).at(-1)?.get('status')).toBe('failed'));
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(2));
    // the summary stays the account's, whatever the filter
    expect(screen.getByText(/32 foto · 30 completate/)).toBeInTheDocument();
  });

  it("'Scarica selezionate' asks the server for one ZIP of the selected ids, not one download each", async () => {
    const zipHandler = vi.fn(() => new Response(new Blob(['PK']), { headers: { 'Content-Disposition': 'attachment; filename="fotopronta-foto.zip"' } }));
    const server = setup({ 'POST /api/photos/zip': zipHandler });
    URL.createObjectURL = vi.fn(() => 'blob:zip');
    URL.revokeObjectURL = vi.fn();
    const user = userEvent.setup();
    renderRoutes(routes, ['/photos']);
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(24));

    await user.click(screen.getByRole('button', { name: /Seleziona completate/ }));
    await user.click(screen.getByRole('button', { name: 'Scarica selezionate (24)' }));
    await waitFor(() => expect(zipHandler).toHaveBeenCalledTimes(1));
    const [, init] = callsTo(server, 'POST', '/api/photos/zip')[0];
    expect(JSON.parse(String((init as RequestInit).body))).toEqual({ photo_ids: photos.slice(0, 24).map((p) => p.id) });
    expect(callsTo(server, 'GET', '/api/photos/p0/download')).toHaveLength(0);
  });
});
