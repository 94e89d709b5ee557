/**
 * An ISO 8601 UTC timestamp for test data, built from its parts (month 1-12), as the API sends them.
 *
 * `utc(2026, 3, 10, 12)` is the instant 10 March 2026, 12:00:00 UTC.
 */
export function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): string {
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second)).toISOString();
}
