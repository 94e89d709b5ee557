import type { UserRole } from '@/types/api';

export interface MenuItem {
  label: string;
  to: string;
  icon: string;
}

export interface MenuGroup {
  label: string;
  items: MenuItem[];
}

const CLIENT_ITEMS: MenuItem[] = [
  { label: 'Overview', to: '/dashboard', icon: '🏠' },
  { label: 'Carica foto', to: '/upload', icon: '⬆️' },
  { label: 'Foto processate', to: '/photos', icon: '🖼️' },
  { label: 'Ordini', to: '/orders', icon: '🧾' },
  { label: 'Crediti', to: '/credits', icon: '💳' },
  { label: 'Profilo', to: '/profile', icon: '👤' },
];

/** Sidebar menus by role (SPEC §2 'Menus by role'). */
export function menuForRole(role: UserRole): MenuGroup[] {
  switch (role) {
    case 'graphic':
      return [
        {
          label: 'Team Grafici',
          items: [
            { label: 'Dashboard Lavori', to: '/graphics-dashboard', icon: '🎨' },
            { label: 'Profilo', to: '/profile', icon: '👤' },
          ],
        },
      ];
    case 'admin':
      return [
        { label: 'Area Cliente', items: CLIENT_ITEMS },
        {
          label: 'Amministrazione',
          items: [
            { label: 'Dashboard Grafici', to: '/graphics-dashboard', icon: '🎨' },
            { label: 'Admin Dashboard', to: '/admin-dashboard', icon: '🛠️' },
          ],
        },
      ];
    default:
      return [{ label: 'Menu Principale', items: CLIENT_ITEMS }];
  }
}
