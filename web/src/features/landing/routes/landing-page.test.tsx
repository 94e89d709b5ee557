import { screen, within } from '@testing-library/react';
import { fakeServer } from '@/test/fake-server';
import { renderWithProviders } from '@/test/utils';
import { LandingPage } from './landing-page';

describe('LandingPage', () => {
  it('has the nav anchors; the hero and closing calls to action open the free-trial sign-up, Accedi the login', async () => {
    fakeServer({}); // GET /api/config: the sign-up credits
    const { container } = renderWithProviders(<LandingPage />);
    const nav = screen.getByRole('navigation', { name: 'Navigazione principale' });
    for (const [label, href] of [
      ['Home', '#home'],
      ['Prima/Dopo', '#before-after'],
      ['Pacchetti', '#pricing'],
      ['Come Funziona', '#how-it-works'],
      ['FAQ', '#faq'],
    ]) {
      expect(within(nav).getByRole('link', { name: label })).toHaveAttribute('href', href);
      expect(container.querySelector(href)).not.toBeNull();
    }
    expect(await screen.findByRole('link', { name: 'Inizia ora - 15 foto gratis' })).toHaveAttribute('href', '/auth?from=free-trial');
    expect(screen.getByRole('link', { name: 'Trasforma 15 foto gratis' })).toHaveAttribute('href', '/auth?from=free-trial');
    expect(within(nav).getByRole('link', { name: 'Accedi' })).toHaveAttribute('href', '/auth');
    expect(within(nav).getByRole('link', { name: 'Inizia Gratis' })).toHaveAttribute('href', '/auth?from=free-trial');
    expect(await screen.findByText('Trascina il cursore')).toBeInTheDocument();
    expect(document.title).toContain('da €0,20 a foto');
  });

  it('shows the three packages with Standard marked as most requested', () => {
    fakeServer({}); // GET /api/config
    renderWithProviders(<LandingPage />);
    const standard = screen.getByRole('article', { name: 'Standard' });
    expect(within(standard).getByText('Più richiesto')).toBeInTheDocument();
    expect(within(standard).getByText('€0,25 a foto')).toBeInTheDocument();
    expect(within(screen.getByRole('article', { name: 'Light' })).getByText('€0,30 a foto')).toBeInTheDocument();
    expect(within(screen.getByRole('article', { name: 'Maxi' })).getByText('€0,20 a foto')).toBeInTheDocument();
    expect(screen.getAllByText('Più richiesto')).toHaveLength(1);
  });
});
