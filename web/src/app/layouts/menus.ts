import { CreditCard, House, Images, Palette, Receipt, Upload, User, Wrench, type LucideIcon } from 'lucide-react';
import type { UserRole } from '@/types/api';

export interface MenuItem {
  label: string;
  to: string;
  icon: LucideIcon;
}

export interface MenuGroup {
  label: string;
  items: MenuItem[];
}

const CLIENT_ITEMS: MenuItem[] = [
  { label: 'Panoramica', to: '/dashboard', icon: House },
  { label: 'Carica foto', to: '/upload', icon: Upload },
  { label: 'Foto processate', to: '/photos', icon: Images },
  { label: 'Ordini', to: '/orders', icon: Receipt },
  { label: 'Crediti', to: '/credits', icon: CreditCard },
  { label: 'Profilo', to: '/profile', icon: User },
];

/** Sidebar menus by role (SPEC §2 'Menus by role'). */
export function menuForRole(role: UserRole): MenuGroup[] {
  switch (role) {
    case 'graphic':
      return [
        {
          label: 'Team Grafici',
          items: [
            { label: 'Bacheca lavori', to: '/graphics-dashboard', icon: Palette },
            { label: 'Profilo', to: '/profile', icon: User },
          ],
        },
      ];
    case 'admin':
      return [
        { label: 'Area Cliente', items: CLIENT_ITEMS },
        {
          label: 'Amministrazione',
          items: [
            { label: 'Bacheca grafici', to: '/graphics-dashboard', icon: Palette },
            { label: 'Pannello di amministrazione', to: '/admin-dashboard', icon: Wrench },
          ],
        },
      ];
    default:
      return [{ label: 'Menu Principale', items: CLIENT_ITEMS }];
  }
}
