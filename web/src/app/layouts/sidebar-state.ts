import { useCallback, useEffect, useState } from 'react';
import { MOBILE_BREAKPOINT, SIDEBAR_COOKIE, SIDEBAR_COOKIE_MAX_AGE } from '@/config/constants';

function readCookie(): boolean {
  const match = document.cookie.split('; ').find((c) => c.startsWith(`${SIDEBAR_COOKIE}=`));
  return match ? match.split('=')[1] !== 'false' : true;
}

export function useIsMobile(): boolean {
  const query = `(max-width: ${MOBILE_BREAKPOINT - 1}px)`;
  const get = () => typeof window.matchMedia === 'function' && window.matchMedia(query).matches;
  const [mobile, setMobile] = useState(get);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const mql = window.matchMedia(query);
    const onChange = () => setMobile(mql.matches);
    mql.addEventListener('change', onChange);
    return () => mql.removeEventListener('change', onChange);
  }, [query]);
  return mobile;
}

/**
 * Sidebar state: expanded/collapsed on desktop (kept in a 7-day cookie), a slide-over on mobile.
 * Ctrl/Cmd + b toggles it.
 */
export function useSidebar() {
  const isMobile = useIsMobile();
  const [expanded, setExpanded] = useState(readCookie);
  const [mobileOpen, setMobileOpen] = useState(false);

  const toggle = useCallback(() => {
    if (isMobile) {
      setMobileOpen((o) => !o);
      return;
    }
    setExpanded((e) => {
      document.cookie = `${SIDEBAR_COOKIE}=${!e}; path=/; max-age=${SIDEBAR_COOKIE_MAX_AGE}`;
      return !e;
    });
  }, [isMobile]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() === 'b' && (e.metaKey || e.ctrlKey)) {
        e.preventDefault();
        toggle();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [toggle]);

  return { isMobile, expanded, mobileOpen, setMobileOpen, toggle };
}
