import { fireEvent, screen, within } from '@testing-library/react';
import { routes } from '@/app/router';
import { useSessionStore } from '@/stores/session';
import { fakeServer } from '@/test/fake-server';
import { JPEG_HEAD, makeProfile, TEST_CONFIG } from '@/test/fixtures';
import { jsonResponse, renderRoutes, testSession } from '@/test/utils';
import type { AppConfig } from '@/types/api';

const MB = 1024 * 1024;
const EMPTY_PAGE = {
  items: [],
  next_cursor: null,
  counts: { total: 0, completed: 0, processing: 0, failed: 0, pending: 0, processed: 0, queued: 0, rejected: 0, designer_queue: 0 },
};

function openUpload(config: AppConfig | (() => Promise<Response>), role: 'client' | 'admin' = 'client') {
  useSessionStore.getState().setSession(testSession);
  fakeServer({
    'GET /api/config': config,
    'GET /api/me': makeProfile({ user_role: role, credits_remaining: 100 }),
    'GET /api/notifications': [],
    'GET /api/photos': EMPTY_PAGE,
  });
  return renderRoutes(routes, ['/upload']);
}

const images = (n: number) => Array.from({ length: n }, (_, i) => new File([JPEG_HEAD, 'x'], `f${i}.jpg`, { type: 'image/jpeg' }));

describe('upload page: the server rules it shows come from GET /api/config', () => {
  it("offers the server's batch limit and refuses one file more", async () => {
    const config: AppConfig = {
      ...TEST_CONFIG,
      batch_limits: { standard: { max_files: 4, max_bytes: 40 * MB }, admin: { max_files: 7, max_bytes: 70 * MB } },
    };
    const { container } = openUpload(config);
    expect(await screen.findByText(/Massimo 4 foto e 40MB per caricamento \(Limite standard\)/)).toBeInTheDocument();

    const input = container.querySelector('input[type="file"]') as HTMLInputElement;
    fireEvent.change(input, { target: { files: images(5) } });
    expect(await screen.findByText('Puoi caricare al massimo 4 foto alla volta (Limite standard)')).toBeInTheDocument();
    fireEvent.change(input, { target: { files: images(4) } });
    expect(await screen.findByText('f3.jpg')).toBeInTheDocument();
  });

  it('checks the content when files are chosen: a text file renamed .jpg is listed as not uploaded and not counted', async () => {
    const { container } = openUpload(TEST_CONFIG);
    await screen.findByText(/Massimo \d+ foto/);
    const input = container.querySelector('input[type="file"]') as HTMLInputElement;
    fireEvent.change(input, {
      target: { files: [new File([JPEG_HEAD, 'x'], 'scarpa.jpg', { type: 'image/jpeg' }), new File(['non sono una foto'], 'appunti.jpg', { type: 'image/jpeg' })] },
    });
    expect(await screen.findByText('appunti.jpg: Solo le immagini sono supportate')).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: 'appunti.jpg' })).toHaveTextContent('Non caricato');
    expect(screen.getByRole('button', { name: 'Carica 1 foto' })).toBeInTheDocument();
    expect(screen.getByText(/In coda: 1 foto · costo 1 credito/)).toBeInTheDocument();
  });

  it('gives admins the admin limit', async () => {
    const config: AppConfig = {
      ...TEST_CONFIG,
      batch_limits: { standard: { max_files: 4, max_bytes: 40 * MB }, admin: { max_files: 7, max_bytes: 70 * MB } },
    };
    openUpload(config, 'admin');
    expect(await screen.findByText(/Massimo 7 foto e 70MB per caricamento \(Limite admin\)/)).toBeInTheDocument();
  });

  it("lists the server's presets (its default chosen) and background categories", async () => {
    const config: AppConfig = {
      ...TEST_CONFIG,
      presets: [
        { value: 'amazon', label: 'Amazon – prova' },
        { value: 'original', label: 'Originale – prova' },
      ],
      default_preset: 'original',
      background_categories: [{ value: 'home_lifestyle', label: 'Casa – prova' }],
    };
    openUpload(config);
    const preset = (await screen.findByLabelText('Formato di uscita')) as HTMLSelectElement;
    expect((await within(preset).findAllByRole('option')).map((o) => o.textContent)).toEqual(['Amazon – prova', 'Originale – prova']);
    expect(preset.value).toBe('original');
    fireEvent.click(screen.getByRole('radio', { name: /Sfondo creativo/ }));
    const category = screen.getByLabelText('Categoria di sfondo') as HTMLSelectElement;
    expect(within(category).getAllByRole('option').map((o) => o.textContent)).toEqual(['Casa – prova']);
    expect(category.value).toBe('home_lifestyle');
  });

  it('keeps files chosen before the settings arrive and lists them once they do', async () => {
    let answer: (r: Response) => void = () => undefined;
    const { container } = openUpload(() => new Promise<Response>((resolve) => (answer = resolve)));
    await screen.findByRole('heading', { name: 'Carica le tue foto' });
    const input = container.querySelector('input[type="file"]') as HTMLInputElement;
    fireEvent.change(input, { target: { files: images(2) } });
    expect(screen.queryByText('f0.jpg')).not.toBeInTheDocument();
    answer(jsonResponse(TEST_CONFIG));
    expect(await screen.findByText('f0.jpg')).toBeInTheDocument();
    expect(screen.getByText('f1.jpg')).toBeInTheDocument();
    expect(screen.getByText(/In coda: 2 foto/)).toBeInTheDocument();
  });
});
