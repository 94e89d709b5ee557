import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { routes } from '@/app/router';
import { useSessionStore } from '@/stores/session';
import { callsTo, fakeServer } from '@/test/fake-server';
import { makePhoto, makeProfile } from '@/test/fixtures';
import { renderRoutes, testSession } from '@/test/utils';
import { utc } from '@/test/utc';

describe('orders page', () => {
  it('shows a batch order in credits, its photos under Dettagli and downloads the ZIP', async () => {
    useSessionStore.getState().setSession(testSession);
    const order = {
      id: 'ord-1', package_type: 'Ritocco AI', total_photos: 2, processed_photos: 2, status: 'completed',
      created_at: utc(2026, 11, 20, 10), total_amount: 2, rejected_photos: 0, failed_photos: 0, downloadable_photos: 2,
      credits_reserved: 2, credits_refunded: 0, credits_spent: 2,
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
    expect(screen.getByText(/2\/2 foto consegnate · 2 crediti spesi/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Dettagli' }));
    expect(await screen.findByRole('list', { name: "Foto dell'ordine" })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Scarica' }));
    expect(callsTo(server, 'GET', '/api/orders/ord-1/download')).toHaveLength(1);
  });

  it('shows what became of each photo, the credits really spent and no download when nothing was delivered', async () => {
    useSessionStore.getState().setSession(testSession);
    const rejected = makePhoto(
      { id: 'p-r', original_filename: 'sfocata.jpg', status: 'uploaded', processed_path: null },
      { job_type: 'background_removal_human', status: 'rejected_human', error_message: 'Foto troppo sfocata', processing_details: null },
    );
    const order = {
      id: 'ord-2', package_type: 'Ritocco del team grafico', total_photos: 1, processed_photos: 0, status: 'completed',
      created_at: utc(2026, 11, 20, 10), total_amount: 3, rejected_photos: 1, failed_photos: 0, downloadable_photos: 0,
      credits_reserved: 3, credits_refunded: 3, credits_spent: 0,
    };
    fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/notifications': [],
      'GET /api/orders': [order],
      'GET /api/credits/purchases': [],
      'GET /api/orders/ord-2': { ...order, photos: [rejected] },
    });
    const user = userEvent.setup();
    renderRoutes(routes, ['/orders']);

    expect(await screen.findByText('Nessuna foto consegnata')).toBeInTheDocument();
    expect(screen.getByText(/0\/1 foto consegnate · 0 crediti spesi · 3 restituiti/)).toBeInTheDocument();
    expect(screen.getByText('1 rifiutata dal grafico')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Scarica' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Dettagli' }));
    const list = await screen.findByRole('list', { name: "Foto dell'ordine" });
    expect(list).toHaveTextContent('sfocata.jpg · Rifiutata: Foto troppo sfocata · crediti restituiti');
  });
});
