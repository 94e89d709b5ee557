import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { routes } from '@/app/router';
import { useSessionStore } from '@/stores/session';
import { fakeServer } from '@/test/fake-server';
import { makeProfile } from '@/test/fixtures';
import { renderRoutes, testSession } from '@/test/utils';
import { Pagination, SortableHeader, type SortState } from '../components/table-controls';
import { formatDuration } from '../lib/timeline';

describe('designers and admin tables', () => {
  it('a designer lands on /graphics-dashboard after login, not on the seller dashboard', async () => {
    fakeServer({
      'POST /api/auth/login': testSession,
      'GET /api/me': makeProfile({ user_role: 'graphic', first_name: 'Marco' }),
      'GET /api/designer/jobs': [],
      'GET /api/notifications': [],
    });
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, ['/auth']);
    await user.type(await screen.findByLabelText('Email'), 'marco@fotopronta.it'); // the /auth page is a lazy route
    await user.type(screen.getByLabelText('Password'), 'segreta1');
    await user.click(screen.getByRole('button', { name: 'Accedi' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/graphics-dashboard'), { timeout: 10_000 });
  });

  it("a designer who opens a seller page by URL is told it is for clients and sent to the jobs dashboard", async () => {
    fakeServer({
      'GET /api/me': makeProfile({ user_role: 'graphic', first_name: 'Marco' }),
      'GET /api/designer/jobs': [],
      'GET /api/notifications': [],
    });
    const user = userEvent.setup();
    useSessionStore.getState().setSession(testSession);
    const { router } = renderRoutes(routes, ['/upload']);
    expect(await screen.findByText('Questa pagina è riservata ai clienti', {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Carica le tue foto' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Torna alla Dashboard' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/graphics-dashboard'));
  });

  it('sortable headers expose aria-sort and toggle the order', async () => {
    function Table() {
      const [sort, setSort] = useState<SortState>({ sort: 'created_at', order: 'desc' });
      return (
        <table>
          <thead>
            <tr>
              <SortableHeader label="Email" column="email" state={sort} onSort={setSort} />
              <SortableHeader label="Registrato" column="created_at" state={sort} onSort={setSort} />
            </tr>
          </thead>
        </table>
      );
    }
    const user = userEvent.setup();
    render(<Table />);
    const email = screen.getByRole('columnheader', { name: /Email/ });
    expect(email).toHaveAttribute('aria-sort', 'none');
    expect(screen.getByRole('columnheader', { name: /Registrato/ })).toHaveAttribute('aria-sort', 'descending');
    await user.click(screen.getByRole('button', { name: /Email/ }));
    expect(email).toHaveAttribute('aria-sort', 'ascending');
    expect(screen.getByRole('columnheader', { name: /Registrato/ })).toHaveAttribute('aria-sort', 'none');
    await user.click(screen.getByRole('button', { name: /Email/ }));
    expect(email).toHaveAttribute('aria-sort', 'descending');
  });

  it('pagination disables the ends and counts the pages', async () => {
    const onPage = vi.fn();
    const user = userEvent.setup();
    render(<Pagination label="Pagine" page={1} size={20} total={41} onPage={onPage} />);
    expect(screen.getByText('Pagina 1 di 3 · 41 risultati')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Precedente' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Successiva' }));
    expect(onPage).toHaveBeenCalledWith(2);
  });

  it('formats step durations in Italian', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(4200)).toBe('4,2 s');
    expect(formatDuration(185_000)).toBe('3 min 5 s');
    expect(formatDuration(72 * 3600 * 1000)).toBe('3 g 0 h');
    expect(formatDuration(null)).toBe('');
  });
});
