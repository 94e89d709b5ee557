import { waitFor } from '@testing-library/react';
import { useToastStore } from '@/components/ui/toast';
import { useSessionStore } from '@/stores/session';
import { callsTo, fakeServer } from '@/test/fake-server';
import { renderWithProviders, testSession } from '@/test/utils';
import { useLiveEvents } from './live-events';

class FakeEventSource {
  static last: FakeEventSource | null = null;
  listeners = new Map<string, (e: MessageEvent) => void>();
  closed = false;
  constructor(public url: string) {
    FakeEventSource.last = this;
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
  it('opens the stream with the access token, refreshes photos and toasts new notifications', async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    useSessionStore.getState().setSession(testSession);
    const server = fakeServer({
      'GET /api/photos': [],
      'GET /api/notifications': [
        { id: 'n1', title: 'Errore elaborazione', message: 'foto.jpg: file danneggiato', type: 'error', read: false, created_at: new Date().toISOString(), related_job_id: null },
      ],
    });
    const { unmount } = renderWithProviders(<Live />);
    const source = FakeEventSource.last!;
    expect(source.url).toContain('/api/events?access_token=');

    source.emit('notification', { table: 'notifications', op: 'insert', id: 'n1' });
    await waitFor(() => expect(useToastStore.getState().toasts.some((t) => t.title === 'Errore elaborazione')).toBe(true));
    expect(useToastStore.getState().toasts.find((t) => t.title === 'Errore elaborazione')?.variant).toBe('destructive');
    expect(callsTo(server, 'GET', '/api/notifications').length).toBeGreaterThan(0);
    unmount();
    expect(source.closed).toBe(true);
  });
});
