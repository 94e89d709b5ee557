import { formatDate, formatDateTime } from './format';

describe('dates in one format and one time zone (Europe/Rome)', () => {
  it('writes date and time as the server does, in Italian time whatever the browser', () => {
    expect(formatDateTime('2026-11-28T10:08:00Z')).toBe('28 nov 2026, 11:08'); // CET, UTC+1
    expect(formatDateTime('2026-07-03T10:08:00Z')).toBe('3 lug 2026, 12:08'); // CEST, UTC+2
    expect(formatDateTime('2026-12-31T23:30:00Z')).toBe('1 gen 2027, 00:30');
    expect(formatDate('2026-12-31T23:30:00Z')).toBe('1 gennaio 2027');
    expect(formatDateTime(null)).toBe('');
  });
});
