import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useSessionStore } from '@/stores/session';
import { callsTo, fakeServer } from '@/test/fake-server';
import { JPEG_HEAD, makePhoto, makeProfile, photoListHandler } from '@/test/fixtures';
import { jsonResponse, renderRoutes, testSession } from '@/test/utils';
import { routes } from './router';

const signIn = () => useSessionStore.getState().setSession(testSession);

describe('auth screens', () => {
  it('logs in, stores the session, toasts and goes to /dashboard', async () => {
    const server = fakeServer({
      'POST /api/auth/login': testSession,
      'GET /api/me': makeProfile(),
      'GET /api/photos': photoListHandler([]),
      'GET /api/notifications': [],
    });
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, ['/auth']);

    expect(await screen.findByRole('heading', { name: 'Benvenuto' })).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Accedi' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('link', { name: 'Password dimenticata?' })).toHaveAttribute('href', '/forgot-password');
    await user.type(screen.getByLabelText('Email'), 'mario@example.com');
    await user.type(screen.getByLabelText('Password'), 'segreta1');
    await user.click(screen.getByRole('button', { name: 'Accedi' }));

    expect(await screen.findByText('Accesso effettuato')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(useSessionStore.getState().session?.access_token).toBe('access-1');
    const [, init] = callsTo(server, 'POST', '/api/auth/login')[0];
    expect(JSON.parse(String((init as RequestInit).body))).toEqual({ email: 'mario@example.com', password: 'segreta1' });
    expect(await screen.findByRole('heading', { level: 1, name: /Mario!/ })).toBeInTheDocument();
    expect(screen.getByText('Cosa vuoi processare oggi?')).toBeInTheDocument();
  });

  it('shows the server detail under "Errore accesso"', async () => {
    fakeServer({
      'POST /api/auth/login': () => jsonResponse({ detail: 'Email o password non corretti', code: 'invalid_credentials' }, 401),
    });
    const user = userEvent.setup();
    renderRoutes(routes, ['/auth']);
    await user.type(await screen.findByLabelText('Email'), 'x@example.com');
    await user.type(screen.getByLabelText('Password'), 'sbagliata');
    await user.click(screen.getByRole('button', { name: 'Accedi' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Errore accesso');
    expect(alert).toHaveTextContent('Email o password non corretti');
  });

  it('signs up with first and last name', async () => {
    const server = fakeServer({ 'POST /api/auth/signup': () => jsonResponse({ id: 'u2', email: 'anna@example.com', pairing_code: '123456' }, 201) });
    const user = userEvent.setup();
    renderRoutes(routes, ['/auth?from=free-trial']);
    expect(await screen.findByRole('heading', { name: 'Inizia la tua prova gratuita' })).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Registrati' })).toHaveAttribute('aria-selected', 'true');
    await user.type(screen.getByLabelText('Nome'), 'Anna');
    await user.type(screen.getByLabelText('Cognome'), 'Bianchi');
    await user.type(screen.getByLabelText('Email'), 'anna@example.com');
    await user.type(screen.getByLabelText('Password'), 'segreta1');
    await user.click(screen.getByRole('button', { name: 'Crea Account' }));
    expect(await screen.findByText('Registrazione completata')).toBeInTheDocument();
    expect(screen.getByText("Controlla la tua email per confermare l'account")).toBeInTheDocument();
    // the page keeps saying it, with the code for another device, and the login form has the address
    const done = screen.getByRole('status', { name: 'Controlla la tua email' });
    expect(done).toHaveTextContent('anna@example.com');
    expect(done).toHaveTextContent('123 456');
    expect(screen.getByRole('tab', { name: 'Accedi' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByLabelText('Email')).toHaveValue('anna@example.com');
    const [, init] = callsTo(server, 'POST', '/api/auth/signup')[0];
    expect(JSON.parse(String((init as RequestInit).body))).toEqual({
      email: 'anna@example.com',
      password: 'segreta1',
      first_name: 'Anna',
      last_name: 'Bianchi',
    });
  });

  it('verifies an e-mailed link on /auth/callback and goes to /dashboard', async () => {
    const server = fakeServer({
      'POST /api/auth/verify': testSession,
      'GET /api/me': makeProfile(),
      'GET /api/photos': photoListHandler([]),
      'GET /api/notifications': [],
    });
    window.history.replaceState(null, '', '/auth/callback?token_hash=abc&type=signup');
    const { router } = renderRoutes(routes, ['/auth/callback?token_hash=abc&type=signup']);
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    const [, init] = callsTo(server, 'POST', '/api/auth/verify')[0];
    expect(JSON.parse(String((init as RequestInit).body))).toEqual({ token_hash: 'abc', type: 'signup' });
    window.history.replaceState(null, '', '/');
  });
});

describe('sign-up link opened in another browser', () => {
  it('asks for a password instead of signing in with the one given at sign-up', async () => {
    fakeServer({
      'POST /api/auth/verify': { ...testSession, password_required: true },
      'POST /api/auth/password/reset': { title: 'Password aggiornata', detail: 'Ora puoi accedere con la nuova password.' },
    });
    const user = userEvent.setup();
    window.history.replaceState(null, '', '/auth/callback?token_hash=abc&type=signup');
    const { router } = renderRoutes(routes, ['/auth/callback?token_hash=abc&type=signup']);
    await waitFor(() => expect(router.state.location.search).toBe('?type=recovery&from=signup'));
    window.history.replaceState(null, '', '/');
    expect(await screen.findByRole('heading', { name: 'Email confermata' })).toBeInTheDocument();
    expect(screen.getByText(/Il tuo indirizzo email è confermato/)).toBeInTheDocument();
    await user.type(await screen.findByPlaceholderText('Inserisci la tua nuova password (minimo 6 caratteri)'), 'mia12345');
    await user.click(screen.getByRole('button', { name: 'Cambia password' }));
    await waitFor(() => expect(useSessionStore.getState().session).toBeNull());
    expect(router.state.location.pathname).toBe('/auth');
  });
});

describe('sign-up link opened in another browser, with the code shown after sign-up', () => {
  it('sends the code and signs in; a wrong code is said on the page', async () => {
    let tries = 0;
    const server = fakeServer({
      'POST /api/auth/verify': { ...testSession, password_required: true },
      'POST /api/auth/signup/pair': () =>
        ++tries === 1
          ? jsonResponse({ detail: 'Il codice non corrisponde a quello mostrato dopo la registrazione.', code: 'pairing_code_invalid' }, 400)
          : jsonResponse(testSession),
      'GET /api/me': makeProfile(),
      'GET /api/photos': photoListHandler([]),
      'GET /api/notifications': [],
    });
    const user = userEvent.setup();
    window.history.replaceState(null, '', '/auth/callback?token_hash=abc&type=signup');
    const { router } = renderRoutes(routes, ['/auth/callback?token_hash=abc&type=signup']);
    const field = await screen.findByLabelText('Codice di 6 cifre mostrato dopo la registrazione');
    window.history.replaceState(null, '', '/');
    await user.type(field, '111111');
    await user.click(screen.getByRole('button', { name: 'Conferma con il codice' }));
    expect(await screen.findByText(/Il codice non corrisponde/)).toBeInTheDocument();
    await user.clear(field);
    await user.type(field, '123 456');
    await user.click(screen.getByRole('button', { name: 'Conferma con il codice' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    const [, init] = callsTo(server, 'POST', '/api/auth/signup/pair')[1];
    expect(JSON.parse(String((init as RequestInit).body))).toEqual({ code: '123456' });
  });
});

describe('/login', () => {
  it('is the same sign-in page as /auth', async () => {
    fakeServer({});
    const { router } = renderRoutes(routes, ['/login?from=free-trial']);
    await waitFor(() => expect(router.state.location.pathname).toBe('/auth'));
    expect(router.state.location.search).toBe('?from=free-trial');
    expect(await screen.findByRole('heading', { name: 'Inizia la tua prova gratuita' })).toBeInTheDocument();
  });
});

describe('guards', () => {
  it('redirects to /auth without a session', async () => {
    fakeServer({});
    const { router } = renderRoutes(routes, ['/photos']);
    await waitFor(() => expect(router.state.location.pathname).toBe('/auth'));
  });

  it('shows Accesso Negato to a client on the graphics dashboard', async () => {
    signIn();
    fakeServer({ 'GET /api/me': makeProfile(), 'GET /api/notifications': [] });
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, ['/graphics-dashboard']);
    expect(await screen.findByRole('heading', { name: 'Accesso Negato' })).toBeInTheDocument();
    expect(screen.getByText('Non hai i permessi necessari per accedere alla Dashboard del Team Grafici')).toBeInTheDocument();
    expect(screen.getByText('Questa sezione è riservata esclusivamente ai membri del team grafici autorizzati.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Torna alla Dashboard' }));
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('uses the admin wording on /admin-dashboard and lets an admin in', async () => {
    signIn();
    fakeServer({ 'GET /api/me': makeProfile({ user_role: 'graphic' }), 'GET /api/notifications': [] });
    renderRoutes(routes, ['/admin-dashboard']);
    expect(await screen.findByText('Non hai i permessi di amministratore necessari per accedere a questa sezione')).toBeInTheDocument();
    expect(screen.getByText('Questa sezione è riservata esclusivamente agli amministratori del sistema.')).toBeInTheDocument();
  });

  it('renders the 404 page with a link home', async () => {
    renderRoutes(routes, ['/non-esiste']);
    expect(await screen.findByRole('heading', { name: 'Pagina non trovata' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Torna alla Home' })).toHaveAttribute('href', '/');
  });
});

describe('signed-in layout', () => {
  it('shows the admin menus and signs out through the user menu', async () => {
    signIn();
    const server = fakeServer({
      'GET /api/me': makeProfile({ user_role: 'admin' }),
      'GET /api/photos': photoListHandler([]),
      'GET /api/notifications': [],
      'POST /api/auth/logout': () => new Response(null, { status: 204 }),
    });
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, ['/dashboard']);
    const admin = await screen.findByRole('navigation', { name: 'Amministrazione' });
    expect(within(admin).getByRole('link', { name: 'Bacheca grafici' })).toHaveAttribute('href', '/graphics-dashboard');
    expect(within(screen.getByRole('navigation', { name: 'Area Cliente' })).getByRole('link', { name: 'Carica foto' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Notifiche' }));
    expect(await screen.findByText('Nessuna notifica')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Menu utente' }));
    await user.click(screen.getByRole('menuitem', { name: 'Esci' }));
    expect(await screen.findByText('Logout effettuato')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(useSessionStore.getState().session).toBeNull();
    const [, init] = callsTo(server, 'POST', '/api/auth/logout')[0];
    expect(JSON.parse(String((init as RequestInit).body))).toEqual({ refresh_token: 'refresh-1' });
  });

  it('counts unread notifications with a 9+ badge', async () => {
    signIn();
    const notes = Array.from({ length: 11 }, (_, i) => ({
      id: `n${i}`,
      title: `Foto pronta ${i}`,
      message: 'La tua foto è pronta',
      type: 'success',
      read: false,
      created_at: new Date().toISOString(),
      related_job_id: null,
    }));
    fakeServer({ 'GET /api/me': makeProfile(), 'GET /api/photos': photoListHandler([]), 'GET /api/notifications': notes });
    renderRoutes(routes, ['/dashboard']);
    expect(await screen.findByTestId('notification-badge')).toHaveTextContent('9+');
  });
});

describe('dashboard, upload and photos', () => {
  it('shows the stat cards from /api/me and /api/photos', async () => {
    signIn();
    fakeServer({
      'GET /api/me': makeProfile({ credits_remaining: 12 }),
      'GET /api/photos': photoListHandler([makePhoto({ id: 'a' }), makePhoto({ id: 'b', status: 'processing' }, { status: 'processing' }), makePhoto({ id: 'c', status: 'uploaded' }, null)]),
      'GET /api/notifications': [],
    });
    renderRoutes(routes, ['/dashboard']);
    const card = (name: string) => screen.findByRole('group', { name });
    expect(await card('Crediti')).toHaveTextContent('12');
    await waitFor(async () => expect(await card('Foto Totali')).toHaveTextContent('3'));
    expect(await card('Processate')).toHaveTextContent('1');
    expect(await card('In Coda')).toHaveTextContent('2');
  });

  it('uploads the chosen images as multipart files + job_type', async () => {
    signIn();
    const server = fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/photos': photoListHandler([]),
      'GET /api/notifications': [],
      'POST /api/photos/batch': () => jsonResponse({ photos: [makePhoto({ id: 'n1', status: 'uploaded' }, { status: 'pending' })], rejected: [] }, 201),
    });
    const user = userEvent.setup({ applyAccept: false });
    renderRoutes(routes, ['/upload']);
    expect(await screen.findByRole('heading', { name: 'Carica le tue foto' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: /Carica 0 foto/ })).toBeInTheDocument());
    const input = screen.getByLabelText('Seleziona foto');
    await user.upload(input, [new File([JPEG_HEAD, 'img'], 'scarpa.jpg', { type: 'image/jpeg' }), new File(['%PDF'], 'listino.pdf', { type: 'application/pdf' })]);
    expect(await screen.findByText('Alcuni file ignorati')).toBeInTheDocument();
    expect(screen.getByText('listino.pdf: Solo le immagini sono supportate')).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: 'scarpa.jpg' })).toHaveTextContent('In coda');
    expect(screen.getByRole('listitem', { name: 'listino.pdf' })).toHaveTextContent('Solo le immagini sono supportate');
    await user.click(screen.getByRole('button', { name: 'Carica 1 foto' }));
    await waitFor(() => expect(callsTo(server, 'POST', '/api/photos/batch')).toHaveLength(1));
    const body = (callsTo(server, 'POST', '/api/photos/batch')[0][1] as RequestInit).body as FormData;
    expect(body.getAll('files').map((f) => (f as File).name)).toEqual(['scarpa.jpg']);
    expect(body.get('job_type')).toBe('background_removal');
  });

  it('keeps the photos the server took and marks each file it refused with its own reason', async () => {
    signIn();
    fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/photos': photoListHandler([]),
      'GET /api/notifications': [],
      'POST /api/photos/batch': () =>
        jsonResponse(
          {
            photos: [makePhoto({ id: 'n1', original_filename: 'a.jpg', status: 'uploaded' }, { status: 'pending' })],
            rejected: [{ index: 1, filename: 'finta.jpg', code: 'unsupported_type', title: 'Alcuni file ignorati', detail: 'Solo le immagini sono supportate' }],
          },
          201,
        ),
    });
    const user = userEvent.setup({ applyAccept: false });
    renderRoutes(routes, ['/upload']);
    await waitFor(() => expect(screen.getByRole('button', { name: /Carica 0 foto/ })).toBeInTheDocument());
    await user.upload(screen.getByLabelText('Seleziona foto'), [new File([JPEG_HEAD, 'img'], 'a.jpg', { type: 'image/jpeg' }), new File([JPEG_HEAD, 'testo'], 'finta.jpg', { type: 'image/jpeg' })]);
    await user.click(screen.getByRole('button', { name: 'Carica 2 foto' }));
    // Toasts come one at a time: first the photos taken, then the files refused, each by name.
    expect(await screen.findByText('1 foto in elaborazione.')).toBeInTheDocument();
    expect(await screen.findByText('finta.jpg: Solo le immagini sono supportate', {}, { timeout: 5_000 })).toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: 'a.jpg' })).not.toHaveTextContent('Non caricato');
    const bad = screen.getByRole('listitem', { name: 'finta.jpg' });
    expect(bad).toHaveTextContent('Non caricato');
    expect(bad).toHaveTextContent('Solo le immagini sono supportate');
    expect(within(bad).queryByRole('button', { name: 'Riprova' })).not.toBeInTheDocument();
    expect(within(bad).getByRole('button', { name: 'Rimuovi finta.jpg' })).toBeInTheDocument();
  });

  it('sends the marketplace preset and SEO hints, and the designer job with its notes', async () => {
    signIn();
    const server = fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/photos': photoListHandler([]),
      'GET /api/notifications': [],
      'POST /api/photos/batch': () => jsonResponse({ photos: [makePhoto({ id: 'n1', status: 'uploaded' }, { status: 'pending' })], rejected: [] }, 201),
    });
    const user = userEvent.setup({ applyAccept: false });
    renderRoutes(routes, ['/upload']);
    await waitFor(() => expect(screen.getByRole('button', { name: /Carica 0 foto/ })).toBeInTheDocument());
    await screen.findByRole('option', { name: /^Amazon/ }); // the presets come with GET /api/config
    await user.selectOptions(screen.getByLabelText('Formato di uscita'), 'amazon');
    await user.type(screen.getByLabelText('Marca (facoltativa, per il nome SEO)'), 'Borsalino');
    await user.upload(screen.getByLabelText('Seleziona foto'), [new File([JPEG_HEAD, 'img'], 'a.jpg', { type: 'image/jpeg' })]);
    await user.click(screen.getByRole('button', { name: 'Carica 1 foto' }));
    await waitFor(() => expect(callsTo(server, 'POST', '/api/photos/batch')).toHaveLength(1));
    let body = (callsTo(server, 'POST', '/api/photos/batch')[0][1] as RequestInit).body as FormData;
    expect([body.get('preset'), body.get('brand'), body.get('client_notes')]).toEqual(['amazon', 'Borsalino', null]);

    await user.click(screen.getByRole('radio', { name: /Ritocco del team grafico/ }));
    await user.type(screen.getByLabelText('Indicazioni per il grafico (facoltative)'), 'ombra morbida');
    await user.upload(screen.getByLabelText('Seleziona foto'), [new File([JPEG_HEAD, 'img'], 'b.jpg', { type: 'image/jpeg' })]);
    await user.click(screen.getByRole('button', { name: 'Carica 1 foto' }));
    await waitFor(() => expect(callsTo(server, 'POST', '/api/photos/batch')).toHaveLength(2));
    body = (callsTo(server, 'POST', '/api/photos/batch')[1][1] as RequestInit).body as FormData;
    expect([body.get('job_type'), body.get('client_notes')]).toEqual(['background_removal_human', 'ombra morbida']);
    // a designer's job is not 'in elaborazione': it is delivered in 24-48 working hours
    expect(await screen.findByText('1 foto inviata al team grafico: consegna in 24-48 ore lavorative.', {}, { timeout: 8_000 })).toBeInTheDocument();
  });

  it('lists photos with badges, Italian relative time, colours and downloads as the SEO name', async () => {
    signIn();
    const server = fakeServer({
      'GET /api/me': makeProfile(),
      'GET /api/notifications': [],
      'GET /api/photos': photoListHandler([
        makePhoto(),
        makePhoto({ id: 'p2', original_filename: 'rotta.jpg', status: 'uploaded', processed_path: null }, { status: 'failed', error_message: 'Immagine non valida', processing_details: null }),
      ]),
      'GET /api/photos/p1/download': () => new Response('jpeg', { status: 200, headers: { 'Content-Type': 'image/jpeg' } }),
    });
    const clicks: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this.download);
    });
    URL.createObjectURL = vi.fn(() => 'blob:x');
    URL.revokeObjectURL = vi.fn();
    const user = userEvent.setup();
    renderRoutes(routes, ['/photos']);

    const card = await screen.findByRole('article', { name: 'nike-scarpa-running-rossa.jpg' });
    expect(within(card).getByText('Completata')).toBeInTheDocument();
    expect(within(card).getByText('5 minuti fa')).toBeInTheDocument();
    expect(within(card).getByText('+1')).toBeInTheDocument();
    expect(within(card).getByText('Nike')).toBeInTheDocument();
    const failed = screen.getByRole('article', { name: 'rotta.jpg' });
    expect(within(failed).getByText('Errore')).toBeInTheDocument();
    expect(within(failed).getByText('Immagine non valida')).toBeInTheDocument();
    expect(within(failed).queryByRole('button', { name: 'Rielabora' })).toBeNull();

    await user.click(within(card).getByRole('button', { name: 'Scarica' }));
    await waitFor(() => expect(clicks).toEqual(['nike-scarpa-running-rossa.jpg']));
    const [, init] = callsTo(server, 'GET', '/api/photos/p1/download')[0];
    expect(new Headers((init as RequestInit).headers).get('Authorization')).toBe('Bearer access-1');

    await user.selectOptions(screen.getByLabelText('Stato'), 'failed');
    expect(screen.queryByRole('article', { name: 'nike-scarpa-running-rossa.jpg' })).toBeNull();
  });
});
