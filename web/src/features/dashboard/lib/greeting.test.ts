import { greeting } from './greeting';

const at = (h: number, m = 0) => new Date(2025, 2, 10, h, m);

describe('greeting', () => {
  it.each([
    [0, 'Buongiorno'],
    [11, 'Buongiorno'],
    [12, 'Buon pomeriggio'],
    [17, 'Buon pomeriggio'],
    [18, 'Buonasera'],
    [23, 'Buonasera'],
  ])('at %i:00 says %s', (hour, expected) => {
    expect(greeting(at(hour))).toBe(expected);
  });

  it('switches exactly at 12:00 and 18:00', () => {
    expect(greeting(at(11, 59))).toBe('Buongiorno');
    expect(greeting(at(17, 59))).toBe('Buon pomeriggio');
  });
});
