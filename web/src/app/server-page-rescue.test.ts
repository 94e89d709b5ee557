import { isServerPath } from '@/config/server-routes';
import { rescueServerPage } from './server-page-rescue';

function fakeLocation(pathname: string) {
  return { pathname, reload: vi.fn() } as unknown as Location & { reload: ReturnType<typeof vi.fn> };
}

function stubWorkers(count: number) {
  const unregister = vi.fn().mockResolvedValue(true);
  const registrations = Array.from({ length: count }, () => ({ unregister }));
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    value: { getRegistrations: vi.fn().mockResolvedValue(registrations) },
  });
  return unregister;
}

describe('server pages and the service worker', () => {
  afterEach(() => {
    sessionStorage.clear();
    Reflect.deleteProperty(navigator, 'serviceWorker');
  });

  it('knows which paths the server answers', () => {
    for (const path of ['/api/photos', '/api', '/healthz', '/dev/checkout/cs_test_1', '/dev/mail', '/docs', '/openapi.json', '/v1/docs', '/v1/jobs', '/v1.0/removebg']) {
      expect(isServerPath(path), path).toBe(true);
    }
    for (const path of ['/', '/dashboard', '/photos', '/credits', '/developer', '/developers', '/apiary', '/v10', '/auth/callback']) {
      expect(isServerPath(path), path).toBe(false);
    }
  });

  it('drops an outdated worker that served the app shell for a server page, once', async () => {
    const unregister = stubWorkers(1);
    const location = fakeLocation('/dev/checkout/cs_test_1');
    expect(await rescueServerPage(location)).toBe(true);
    expect(unregister).toHaveBeenCalledTimes(1);
    expect(location.reload).toHaveBeenCalledTimes(1);
    // the shell again for the same path after the reload: no loop, the app renders its 404
    expect(await rescueServerPage(location)).toBe(false);
    expect(location.reload).toHaveBeenCalledTimes(1);
  });

  it('leaves app pages and browsers without a worker alone', async () => {
    const unregister = stubWorkers(1);
    const app = fakeLocation('/photos');
    expect(await rescueServerPage(app)).toBe(false);
    expect(unregister).not.toHaveBeenCalled();
    stubWorkers(0);
    const server = fakeLocation('/dev/mail');
    expect(await rescueServerPage(server)).toBe(false);
    expect(server.reload).not.toHaveBeenCalled();
  });
});
