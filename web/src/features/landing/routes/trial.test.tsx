import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeServer } from '@/test/fake-server';
import { renderWithProviders } from '@/test/utils';
import { LandingPage } from './landing-page';
import { normaliseSite, trialMailto, validateTrial } from '../lib/trial';

describe("'Prova gratuita' form (SPEC §2, §5)", () => {
  it('requires nome and a valid email, and sito only as a URL', () => {
    expect(validateTrial({ nome: '', email: '', sito: '' })).toEqual({ nome: 'Il nome è obbligatorio', email: "L'email è obbligatoria" });
    expect(validateTrial({ nome: 'Anna', email: 'anna@', sito: '' }).email).toBe('Inserisci un indirizzo email valido');
    expect(validateTrial({ nome: 'Anna', email: 'anna@negozio.it', sito: 'non un sito' }).sito).toMatch(/indirizzo web valido/);
    expect(validateTrial({ nome: 'Anna', email: 'anna@negozio.it', sito: 'www.negozio.it' })).toEqual({});
    expect(normaliseSite('negozio.it/shop')).toBe('https://negozio.it/shop');
    expect(normaliseSite('ftp://negozio.it')).toBeNull();
  });

  it('builds a mailto to the company address with the fields', () => {
    const href = trialMailto({ nome: 'Anna Verdi', email: 'anna@negozio.it', sito: 'negozio.it' });
    expect(href.startsWith('mailto:info@fotopronta.it?subject=')).toBe(true);
    const body = decodeURIComponent(new URL(href).searchParams.get('body') ?? '');
    expect(body).toContain('Nome: Anna Verdi');
    expect(body).toContain('Email: anna@negozio.it');
    expect(body).toContain('Sito: https://negozio.it/');
  });

  it('opens from the landing page, validates, sends and closes; Annulla closes', async () => {
    const clicks: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this.href);
    });
    const user = userEvent.setup();
    fakeServer({}); // GET /api/config
    renderWithProviders(<LandingPage />);
    await user.click(screen.getByRole('button', { name: 'Prova gratuita: 3 foto' }));
    let dialog = screen.getByRole('dialog', { name: 'Prova gratuita' });
    await user.click(within(dialog).getByRole('button', { name: 'Invia richiesta' }));
    expect(within(dialog).getByText('Il nome è obbligatorio')).toBeInTheDocument();
    expect(clicks).toEqual([]);
    await user.type(within(dialog).getByLabelText('Nome'), 'Anna');
    await user.type(within(dialog).getByLabelText('Email'), 'anna@negozio.it');
    await user.click(within(dialog).getByRole('button', { name: 'Invia richiesta' }));
    expect(clicks).toHaveLength(1);
    expect(clicks[0]).toMatch(/^mailto:info@fotopronta\.it\?/);
    expect(screen.queryByRole('dialog')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Prova gratuita: 3 foto' }));
    dialog = screen.getByRole('dialog', { name: 'Prova gratuita' });
    await user.click(within(dialog).getByRole('button', { name: 'Annulla' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
