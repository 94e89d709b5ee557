import { waitFor } from '@testing-library/react';
import { useToastStore } from '@/components/ui/toast';
import { useSessionStore } from '@/stores/session';
import { callsTo, fakeServer } from '@/test/fake-server';
import { photoListHandler } from '@/test/fixtures';
import { jsonResponse, renderWithProviders, testSession } from '@/test/utils';
import { useLiveEvents } from './live-events';

class FakeEventSource {
  static last: FakeEventSource | null = null;
  static all: FakeEventSource[] = [];
  listeners = new Map<string, (e: MessageEvent) => void>();
  closed = false;
  constructor(public url: string) {
    FakeEventSource.last = this;
    FakeEventSource.all.push(this);
  }
  addEventListener(type: string, fn: (e: MessageEvent) => void) {
    this.listeners.set(type, fn);
  }
  close() {
    this.closed = true;
  }
  emit(type: string, data: unknown) {
    this.listeners.get(type)?.(new MessageEvent(type, { data: JSON.stringify(data) }));
  }
}

function Live() {
  useLiveEvents();
  return null;
}

describe('live events', () => {
  it('opens the stream with a single-use ticket (never the access token), refreshes photos and toasts new notifications', async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    FakeEventSource.last = null;
    useSessionStore.getState().setSession(testSession);
    const server = fakeServer({
      'POST /api/events/ticket': { ticket: 'biglietto-1', expires_in: 60 },
      'GET /api/photos': photoListHandler([]),
      'GET /api/notifications': [
        { id: 'n1', title: 'Errore elaborazione', message: 'foto.jpg: file danneggiato', type: 'error', read: false, created_at: new Date().toISOString(), related_job_id: null },
      ],
    });
    const { unmount } = renderWithProviders(<Live />);
    await waitFor(() => expect(FakeEventSource.last).not.toBeNull());
    const source = FakeEventSource.last!;
    expect(source.url).toMatch(/\/api\/events\?ticket=biglietto-1$/);
    expect(source.url).not.toContain(testSession.access_token);
    expect(source.url).not.toContain('access_token');
    const [, init] = callsTo(server, 'POST', '/api/events/ticket')[0];
    expect(new Headers((init as RequestInit).headers).get('Authorization')).toBe(`Bearer ${testSession.access_token}`);

    source.emit('notification', { table: 'notifications', op: 'insert', id: 'n1' });
    await waitFor(() => expect(useToastStore.getState().toasts.some((t) => t.title === 'Errore elaborazione')).toBe(true));
    expect(useToastStore.getState().toasts.find((t) => t.title === 'Errore elaborazione')?.variant).toBe('destructive');
    expect(callsTo(server, 'GET', '/api/notifications').length).toBeGreaterThan(0);
    unmount();
    expect(source.closed).toBe(true);
  });

  it('reopens a failed stream with a new ticket, and stops when the session is revoked', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    vi.stubGlobal('EventSource', FakeEventSource);
    FakeEventSource.all = [];
    useSessionStore.getState().setSession(testSession);
    let issued = 0;
    const server = fakeServer({
      'POST /api/events/ticket': () => jsonResponse({ ticket: `biglietto-${++issued}`, expires_in: 60 }),
      'GET /api/me': () => jsonResponse({ detail: 'Sessione non valida o scaduta: accedi di nuovo.', code: 'invalid_token' }, 401),
      'POST /api/auth/refresh': () => jsonResponse({ detail: 'Sessione scaduta: accedi di nuovo.' }, 401),
    });
    const { unmount } = renderWithProviders(<Live />);
    await waitFor(() => expect(FakeEventSource.all).toHaveLength(1));
    const first = FakeEventSource.all[0];
    first.emit('error', {});
    expect(first.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(1100);
    await waitFor(() => expect(FakeEventSource.all).toHaveLength(2));
    const second = FakeEventSource.all[1];
    expect(second.url).toContain('ticket=biglietto-2');
    expect(callsTo(server, 'POST', '/api/events/ticket')).toHaveLength(2);

    second.emit('session', { reason: 'revoked' });
    expect(second.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(15000);
    expect(FakeEventSource.all).toHaveLength(2);
    unmount();
    vi.useRealTimers();
  });
});
