import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { routes } from '@/app/router';
import { useSessionStore } from '@/stores/session';
import { callsTo, fakeServer } from '@/test/fake-server';
import { makeProfile } from '@/test/fixtures';
import { jsonResponse, renderRoutes, testSession } from '@/test/utils';
import { utc } from '@/test/utc';
import type { ApiKey, WebhookDelivery, WebhookEndpoint } from '@/types/api';

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

const WHSEC = `whsec_${'c2VncmV0bw=='.repeat(3)}`;

function makeEndpoint(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return {
    id: 'we-1',
    object: 'webhook_endpoint',
    url: 'https://negozio.example.com/hook',
    description: null,
    events: ['job.completed', 'job.failed'],
    status: 'enabled',
    disabled_reason: null,
    livemode: true,
    created_at: utc(2026, 11, 28, 9),
    ...overrides,
  };
}

function makeDelivery(overrides: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    id: 'wd-1',
    object: 'webhook_delivery',
    endpoint_id: 'we-1',
    event_id: 'ev-1',
    event_type: 'job.completed',
    job_id: 'job-1',
    status: 'pending',
    attempt_count: 1,
    last_status_code: 503,
    last_error: null,
    next_attempt_at: utc(2026, 11, 28, 10),
    created_at: utc(2026, 11, 28, 9),
    completed_at: null,
    attempts: [{ number: 1, started_at: utc(2026, 11, 28, 9), status_code: 503, response_ms: 42, error: null, manual: false }],
    ...overrides,
  };
}

describe('developers page', () => {
  it('registers a webhook endpoint, shows its secret once, its log, resends a delivery and rotates the secret', async () => {
    useSessionStore.getState().setSession(testSession);
    let endpoints: WebhookEndpoint[] = [];
    const server = fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/notifications': [],
      'GET /api/api-keys': [],
      'GET /api/webhook-endpoints': () => jsonResponse(endpoints),
      'POST /api/webhook-endpoints': (init: RequestInit) => {
        const body = JSON.parse(String(init.body)) as { url: string; events: WebhookEndpoint['events'] };
        endpoints = [makeEndpoint({ url: body.url, events: body.events })];
        return jsonResponse({ ...endpoints[0], secret: WHSEC }, 201);
      },
      'GET /api/webhook-endpoints/we-1/deliveries': () => jsonResponse({ object: 'list', data: [makeDelivery()], has_more: false, next_cursor: null }),
      'POST /api/webhook-deliveries/wd-1/retry': () => jsonResponse(makeDelivery(), 202),
      'POST /api/webhook-endpoints/we-1/rotate-secret': () => jsonResponse({ ...endpoints[0], secret: `${WHSEC}X` }),
    });
    const user = userEvent.setup();
    renderRoutes(routes, ['/developers']);

    await user.type(await screen.findByLabelText("URL dell'endpoint"), 'https://negozio.example.com/hook');
    await user.click(screen.getByLabelText('Lotto completato (batch.completed)'));
    await user.click(screen.getByRole('button', { name: /Registra endpoint/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Il segreto di firma del webhook' });
    expect(within(dialog).getByLabelText('Segreto di firma')).toHaveTextContent(WHSEC);
    const sent = JSON.parse(String(callsTo(server, 'POST', '/api/webhook-endpoints')[0][1]?.body)) as Record<string, unknown>;
    expect(sent).toEqual({ url: 'https://negozio.example.com/hook', events: ['job.completed', 'job.failed', 'batch.completed'] });
    await user.click(within(dialog).getByRole('button', { name: 'Ho salvato il segreto' }));

    const log = await screen.findByRole('table', { name: 'Registro invii di https://negozio.example.com/hook' });
    expect(within(log).getByText('job.completed')).toBeInTheDocument();
    expect(within(log).getByText('In corso')).toBeInTheDocument();
    expect(within(log).getByText('503 (42 ms)')).toBeInTheDocument();
    expect(log).not.toHaveTextContent(WHSEC);
    await user.click(within(log).getByRole('button', { name: 'Reinvia job.completed' }));
    expect(await screen.findByText('Invio ripetuto')).toBeInTheDocument();
    expect(callsTo(server, 'POST', '/api/webhook-deliveries/wd-1/retry')).toHaveLength(1);

    await user.click(screen.getByRole('button', { name: 'Ruota il segreto' }));
    const rotated = await screen.findByRole('dialog', { name: 'Il nuovo segreto di firma' });
    expect(within(rotated).getByLabelText('Segreto di firma')).toHaveTextContent(`${WHSEC}X`);
    expect(rotated).toHaveTextContent('Per 24 ore');
  });

  it('says in the app that an endpoint answering 410 was disabled', async () => {
    useSessionStore.getState().setSession(testSession);
    fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/notifications': [],
      'GET /api/api-keys': [],
      'GET /api/webhook-endpoints': [makeEndpoint({ status: 'disabled', disabled_reason: 'gone' })],
      'GET /api/webhook-endpoints/we-1/deliveries': { object: 'list', data: [], has_more: false, next_cursor: null },
    });
    renderRoutes(routes, ['/developers']);
    expect(await screen.findByText(/ha risposto 410 \(Gone\)/)).toBeInTheDocument();
    expect(screen.getByText('Disattivato')).toBeInTheDocument();
    expect(await screen.findByText(/Nessun invio ancora/)).toBeInTheDocument();
  });

  it('creates a key, shows its secret once with the quickstart, lists it and revokes it', async () => {
    useSessionStore.getState().setSession(testSession);
    let keys: ApiKey[] = [];
    const server = fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/notifications': [],
      'GET /api/api-keys': () => jsonResponse(keys),
      'GET /api/webhook-endpoints': [],
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
    fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/notifications': [],
      'GET /api/api-keys': [makeKey({ last_used_at: utc(2026, 11, 28, 9) })],
      'GET /api/webhook-endpoints': [],
    });
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
