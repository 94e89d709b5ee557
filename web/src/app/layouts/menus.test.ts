import { menuForRole } from './menus';

const shape = (role: Parameters<typeof menuForRole>[0]) => menuForRole(role).map((g) => [g.label, g.items.map((i) => `${i.label} ${i.to}`)]);

describe('menus by role (SPEC §2)', () => {
  it('client: Menu Principale', () => {
    expect(shape('client')).toEqual([
      [
        'Menu Principale',
        ['Panoramica /dashboard', 'Carica foto /upload', 'Foto processate /photos', 'Ordini /orders', 'Crediti /credits', 'Profilo /profile'],
      ],
    ]);
  });

  it('graphic: Team Grafici', () => {
    expect(shape('graphic')).toEqual([['Team Grafici', ['Bacheca lavori /graphics-dashboard', 'Profilo /profile']]]);
  });

  it('admin: Area Cliente and Amministrazione', () => {
    const groups = shape('admin');
    expect(groups[0]).toEqual(shape('client')[0].map((x, i) => (i === 0 ? 'Area Cliente' : x)));
    expect(groups[1]).toEqual(['Amministrazione', ['Bacheca grafici /graphics-dashboard', 'Pannello di amministrazione /admin-dashboard']]);
  });
});
