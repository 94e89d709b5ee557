import { Menu } from 'lucide-react';
import { useEffect } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router-dom';
import { ErrorBoundary } from '@/components/errors/error-boundary';
import { PRODUCT_NAME } from '@/config/constants';
import { NotificationBell } from '@/features/notifications';
import { effectiveRole, useMe } from '@/lib/auth';
import { useLiveEvents } from '../live-events';
import { menuForRole } from './menus';
import { useSidebar } from './sidebar-state';
import { UserMenu } from './user-menu';

/** Signed-in layout: collapsible sidebar with the role's menus, top bar with bell and user menu. */
export function AppLayout() {
  const { data: profile } = useMe();
  useLiveEvents();
  const groups = menuForRole(effectiveRole(profile));
  const { isMobile, expanded, mobileOpen, setMobileOpen, toggle } = useSidebar();
  const location = useLocation();

  useEffect(() => setMobileOpen(false), [location.pathname, setMobileOpen]);

  const collapsed = !isMobile && !expanded;
  const visible = isMobile ? mobileOpen : true;
  const toggleLabel = isMobile ? (mobileOpen ? 'Chiudi menu' : 'Apri menu') : expanded ? 'Comprimi barra laterale' : 'Espandi barra laterale';

  return (
    <div className={`app-shell ${collapsed ? 'sidebar-collapsed' : ''}`}>
      {isMobile && mobileOpen ? <div className="sidebar-overlay" onClick={() => setMobileOpen(false)} aria-hidden="true" /> : null}
      <aside
        id="app-sidebar"
        className={`sidebar ${isMobile ? 'sidebar-mobile' : ''} ${visible ? 'sidebar-visible' : ''}`}
        aria-label="Barra laterale"
        data-state={collapsed ? 'collapsed' : 'expanded'}
        hidden={!visible}
      >
        <NavLink to="/dashboard" className="brand sidebar-brand" aria-label={`${PRODUCT_NAME} – dashboard`}>
          <img src="/favicon.svg" alt="" width={28} height={28} />
          {!collapsed ? <span>{PRODUCT_NAME}</span> : null}
        </NavLink>
        {groups.map((g) => (
          <nav key={g.label} aria-label={g.label} className="sidebar-group">
            {!collapsed ? <p className="sidebar-group-label">{g.label}</p> : null}
            <ul>
              {g.items.map((item) => (
                <li key={`${g.label}-${item.to}`}>
                  <NavLink to={item.to} end className="sidebar-link" title={collapsed ? item.label : undefined}>
                    <item.icon aria-hidden="true" className="sidebar-icon" size={18} />
                    <span className={collapsed ? 'sr-only' : ''}>{item.label}</span>
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
        ))}
      </aside>
      <div className="app-main">
        <header className="topbar">
          <button
            type="button"
            className="btn btn-ghost icon-button"
            onClick={toggle}
            aria-label={toggleLabel}
            aria-controls="app-sidebar"
            aria-expanded={isMobile ? mobileOpen : expanded}
            title={`${toggleLabel} (Ctrl/Cmd + B)`}
          >
            <Menu aria-hidden="true" size={20} />
          </button>
          <div className="topbar-spacer" />
          <NotificationBell />
          <UserMenu profile={profile} />
        </header>
        <main className="app-content" id="main">
          <ErrorBoundary name={location.pathname} key={location.pathname}>
            <Outlet />
          </ErrorBoundary>
        </main>
      </div>
    </div>
  );
}
