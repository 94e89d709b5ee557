import { effectiveRole, roleLabel } from '@/lib/auth';
import { notificationTime, relativeTime } from './format';
import { utc } from '@/test/utc';

const now = new Date(utc(2025, 3, 10, 12));
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('dates in Italian', () => {
  it('formats relative photo times with date-fns it locale', () => {
    expect(relativeTime(ago(3 * 60_000), now)).toBe('3 minuti fa');
    expect(relativeTime(ago(2 * 86_400_000), now)).toBe('2 giorni fa');
  });

  it('formats notification times per SPEC §9', () => {
    expect(notificationTime(ago(30_000), now)).toBe('Ora');
    expect(notificationTime(ago(5 * 60_000), now)).toBe('5m fa');
    expect(notificationTime(ago(3 * 3_600_000), now)).toBe('3h fa');
    expect(notificationTime(ago(6 * 86_400_000), now)).toBe('6g fa');
    expect(notificationTime(new Date(2025, 1, 20, 9), now)).toBe('20/02');
  });
});

describe('roles (SPEC §6)', () => {
  it('treats unknown roles and inactive non-clients as clients', () => {
    expect(effectiveRole({ user_role: 'admin', is_active: true })).toBe('admin');
    expect(effectiveRole({ user_role: 'graphic', is_active: false })).toBe('client');
    expect(effectiveRole({ user_role: 'superuser', is_active: true })).toBe('client');
    expect(effectiveRole(null)).toBe('client');
    expect(roleLabel('graphic')).toBe('Grafico');
    expect(roleLabel(undefined)).toBe('Cliente');
  });
});
