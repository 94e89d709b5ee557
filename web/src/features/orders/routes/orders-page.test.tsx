import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { routes } from '@/app/router';
import { useSessionStore } from '@/stores/session';
import { callsTo, fakeServer } from '@/test/fake-server';
import { makePhoto, makeProfile } from '@/test/fixtures';
import { renderRoutes, testSession } from '@/test/utils';

describe('orders page', () => {
  it('shows a batch order in credits, its photos under Dettagli and downloads the ZIP', async () => {
    useSessionStore.getState().setSession(testSession);
    const order = {
      id: 'ord-1', package_type: 'Ritocco AI', total_photos: 2, processed_photos: 2, status: 'completed',
      created_at: '2026-11-20T10:00:00Z', total_amount: 2,
    };
    const server = fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/notifications': [],
      'GET /api/orders': [order],
      'GET /api/credits/purchases': [],
      'GET /api/orders/ord-1': { ...order, photos: [makePhoto()] },
      'GET /api/orders/ord-1/download': () =>
        new Response(new Blob(['PK']), { headers: { 'Content-Disposition': 'attachment; filename="ordine.zip"' } }),
    });
    URL.createObjectURL = vi.fn(() => 'blob:zip');
    URL.revokeObjectURL = vi.fn();
    const user = userEvent.setup();
    renderRoutes(routes, ['/orders']);

    expect(await screen.findByText('Ritocco AI')).toBeInTheDocument();
    expect(screen.getByText(/2\/2 foto · 2 crediti/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Dettagli' }));
    expect(await screen.findByRole('list', { name: "Foto dell'ordine" })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Scarica' }));
    expect(callsTo(server, 'GET', '/api/orders/ord-1/download')).toHaveLength(1);
  });
});
