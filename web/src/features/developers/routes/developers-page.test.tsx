import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { routes } from '@/app/router';
import { useSessionStore } from '@/stores/session';
import { callsTo, fakeServer } from '@/test/fake-server';
import { makeProfile } from '@/test/fixtures';
import { jsonResponse, renderRoutes, testSession } from '@/test/utils';
import { utc } from '@/test/utc';
import type { ApiKey } from '@/types/api';

const SECRET = `fp_live_${'A1b2C3d4'.repeat(5)}xyz`;

function makeKey(overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id: 'key-1',
    name: 'Shopify',
    mode: 'live',
    prefix: 'fp_live_A1b2C3d4',
    scopes: ['jobs:write', 'jobs:read', 'webhooks:manage'],
    monthly_credit_cap: null,
    credits_used_this_month: 0,
    created_at: utc(2026, 11, 27, 9),
    last_used_at: null,
    revoked_at: null,
    ...overrides,
  };
}

describe('developers page', () => {
  it('creates a key, shows its secret once with the quickstart, lists it and revokes it', async () => {
    useSessionStore.getState().setSession(testSession);
    let keys: ApiKey[] = [];
    const server = fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/notifications': [],
      'GET /api/api-keys': () => jsonResponse(keys),
      'POST /api/api-keys': (init: RequestInit) => {
        const body = JSON.parse(String(init.body)) as { name: string; scopes: string[]; monthly_credit_cap: number | null };
        keys = [makeKey({ name: body.name, scopes: body.scopes as ApiKey['scopes'], monthly_credit_cap: body.monthly_credit_cap })];
        return jsonResponse({ ...keys[0], secret: SECRET }, 201);
      },
      'DELETE /api/api-keys/key-1': () => {
        keys = [{ ...keys[0], revoked_at: utc(2026, 11, 28, 10) }];
        return new Response(null, { status: 204 });
      },
    });
    const user = userEvent.setup();
    renderRoutes(routes, ['/developers']);

    expect(await screen.findByRole('heading', { name: 'Sviluppatori' })).toBeInTheDocument();
    expect(screen.getByText(/Non hai ancora chiavi API/)).toBeInTheDocument();
    await user.type(screen.getByLabelText('Nome della chiave'), 'Shopify');
    await user.click(screen.getByLabelText('Gestire i webhook (webhooks:manage)'));
    await user.type(screen.getByLabelText('Tetto mensile di crediti (facoltativo)'), '200');
    await user.click(screen.getByRole('button', { name: /Crea chiave/ }));

    const dialog = await screen.findByRole('dialog', { name: 'La tua nuova chiave API' });
    expect(within(dialog).getByLabelText('Chiave segreta')).toHaveTextContent(SECRET);
    const sent = JSON.parse(String(callsTo(server, 'POST', '/api/api-keys')[0][1]?.body)) as Record<string, unknown>;
    expect(sent).toEqual({ name: 'Shopify', scopes: ['jobs:write', 'jobs:read'], monthly_credit_cap: 200, mode: 'live' });
    await user.click(within(dialog).getByRole('button', { name: 'Ho salvato la chiave' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    // the quickstart carries the key just created and this site's address, in three languages
    expect(screen.getByLabelText('Esempio curl')).toHaveTextContent(`FOTOPRONTA_KEY="${SECRET}"`);
    expect(screen.getByLabelText('Esempio curl')).toHaveTextContent(`${window.location.origin}/v1/jobs`);
    await user.click(screen.getByRole('tab', { name: 'Python' }));
    expect(screen.getByLabelText('Esempio Python')).toHaveTextContent(`"Bearer ${SECRET}"`);

    // listed by its prefix (never the secret), never used yet
    const table = await screen.findByRole('table', { name: 'Chiavi API' });
    expect(within(table).getByText('fp_live_A1b2C3d4…')).toBeInTheDocument();
    expect(within(table).getByText('Mai usata')).toBeInTheDocument();
    expect(within(table).getByText('0 / 200')).toBeInTheDocument();
    expect(table).not.toHaveTextContent(SECRET);

    await user.click(within(table).getByRole('button', { name: 'Revoca Shopify' }));
    const confirm = await screen.findByRole('dialog', { name: 'Revocare la chiave?' });
    await user.click(within(confirm).getByRole('button', { name: 'Revoca chiave' }));
    expect(await within(table).findByText('Revocata')).toBeInTheDocument();
    expect(callsTo(server, 'DELETE', '/api/api-keys/key-1')).toHaveLength(1);
  });

  it('is in the user menu of sellers and not of designers', async () => {
    useSessionStore.getState().setSession(testSession);
    fakeServer({ 'GET /api/me': makeProfile(), 'GET /api/notifications': [], 'GET /api/api-keys': [makeKey({ last_used_at: utc(2026, 11, 28, 9) })] });
    const user = userEvent.setup();
    renderRoutes(routes, ['/profile']);
    await user.click(await screen.findByRole('button', { name: 'Menu utente' }));
    await user.click(screen.getByRole('menuitem', { name: 'Sviluppatori' }));
    const table = await screen.findByRole('table', { name: 'Chiavi API' });
    expect(within(table).queryByText('Mai usata')).not.toBeInTheDocument();
    expect(within(table).getByText('Attiva')).toBeInTheDocument();
  });

  it('has no Sviluppatori entry for a designer', async () => {
    const designer = makeProfile({ user_role: 'graphic' });
    useSessionStore.getState().setSession({ ...testSession, user: designer });
    fakeServer({ 'GET /api/me': designer, 'GET /api/notifications': [] });
    const user = userEvent.setup();
    renderRoutes(routes, ['/profile']);
    await user.click(await screen.findByRole('button', { name: 'Menu utente' }));
    expect(screen.getByRole('menuitem', { name: 'Profilo' })).toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Sviluppatori' })).not.toBeInTheDocument();
  });
});
