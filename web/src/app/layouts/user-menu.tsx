import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import { useDismiss } from '@/lib/use-dismiss';
import { useNavigate } from 'react-router-dom';
import { toast } from '@/components/ui/toast';
import { effectiveRole, logout } from '@/lib/auth';
import type { Profile } from '@/types/api';

function initials(p: Profile | undefined): string {
  const s = `${p?.first_name?.[0] ?? ''}${p?.last_name?.[0] ?? ''}`.trim();
  return (s || p?.email?.[0] || '?').toUpperCase();
}

/** Avatar button with Profilo, Impostazioni (→ /profile, per DESIGN), Sviluppatori (sellers and admins:
 * their API keys) and Esci. */
export function UserMenu({ profile }: { profile: Profile | undefined }) {
  const [open, setOpen] = useState(false);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const ref = useRef<HTMLDivElement>(null);
  const closeMenu = useCallback(() => setOpen(false), []);

  useDismiss(ref, open, closeMenu);

  const go = (to: string) => {
    setOpen(false);
    navigate(to);
  };

  const signOut = async () => {
    setOpen(false);
    await logout();
    queryClient.clear();
    toast({ title: 'Logout effettuato', description: 'A presto!' });
    navigate('/', { replace: true });
  };

  const name = [profile?.first_name, profile?.last_name].filter(Boolean).join(' ');

  return (
    <div className="popover-anchor" ref={ref}>
      <button
        type="button"
        className="avatar-button"
        aria-label="Menu utente"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls="user-menu"
        onClick={() => setOpen((o) => !o)}
      >
        <span className="avatar" aria-hidden="true">
          {initials(profile)}
        </span>
      </button>
      {open ? (
        <div className="popover user-menu">
          <div className="popover-header user-menu-header">
            <strong>{name || 'Il tuo account'}</strong>
            <span className="muted">{profile?.email}</span>
          </div>
          <ul id="user-menu" role="menu" aria-label="Menu utente">
            <li role="none">
              <button type="button" role="menuitem" className="menu-item" onClick={() => go('/profile')}>
                Profilo
              </button>
            </li>
            <li role="none">
              <button type="button" role="menuitem" className="menu-item" onClick={() => go('/profile')}>
                Impostazioni
              </button>
            </li>
            {effectiveRole(profile) === 'graphic' ? null : (
              <li role="none">
                <button type="button" role="menuitem" className="menu-item" onClick={() => go('/developers')}>
                  Sviluppatori
                </button>
              </li>
            )}
            <li role="none">
              <button type="button" role="menuitem" className="menu-item danger" onClick={signOut}>
                Esci
              </button>
            </li>
          </ul>
        </div>
      ) : null}
    </div>
  );
}
