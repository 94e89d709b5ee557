import { unreadBadge } from './notifications-api';

describe('notification badge', () => {
  it('shows the count, then 9+', () => {
    expect(unreadBadge(0)).toBe('');
    expect(unreadBadge(9)).toBe('9');
    expect(unreadBadge(10)).toBe('9+');
  });
});
