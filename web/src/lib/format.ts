import { differenceInCalendarDays, format, formatDistance, isValid, parseISO } from 'date-fns';
import { it } from 'date-fns/locale';

function toDate(value: string | Date | null | undefined): Date | null {
  if (!value) return null;
  const d = typeof value === 'string' ? parseISO(value) : value;
  return isValid(d) ? d : null;
}

/** "3 minuti fa", "circa 2 ore fa" (date-fns, Italian locale). */
export function relativeTime(value: string | Date | null | undefined, now: Date = new Date()): string {
  const d = toDate(value);
  if (!d) return '';
  if (d.getTime() > now.getTime()) return 'adesso';
  return formatDistance(d, now, { addSuffix: true, locale: it });
}

/** Notification time (SPEC §9): 'Ora' under a minute, then m, h, g with 'fa' up to 6 days, then dd/mm. */
export function notificationTime(value: string | Date, now: Date = new Date()): string {
  const d = toDate(value);
  if (!d) return '';
  const minutes = Math.floor((now.getTime() - d.getTime()) / 60000);
  if (minutes < 1) return 'Ora';
  if (minutes < 60) return `${minutes}m fa`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h fa`;
  const days = Math.floor(hours / 24);
  if (days <= 6) return `${days}g fa`;
  return format(d, 'dd/MM', { locale: it });
}

/** Every date and time is shown in Italian time, wherever the browser is (the server's texts too:
 * `format_it` in api/job_timeline.py writes the same "28 nov 2026, 11:08"). */
export const APP_TIME_ZONE = 'Europe/Rome';
const dateFormat = new Intl.DateTimeFormat('it-IT', { day: 'numeric', month: 'long', year: 'numeric', timeZone: APP_TIME_ZONE });
const dateTimeParts = new Intl.DateTimeFormat('it-IT', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZone: APP_TIME_ZONE,
});

/** "12 marzo 2025" (Europe/Rome). */
export function formatDate(value: string | Date | null | undefined): string {
  const d = toDate(value);
  return d ? dateFormat.format(d) : '';
}

/** "28 nov 2026, 11:08" (Europe/Rome). */
export function formatDateTime(value: string | Date | null | undefined): string {
  const d = toDate(value);
  if (!d) return '';
  const part = (type: Intl.DateTimeFormatPartTypes) => dateTimeParts.formatToParts(d).find((p) => p.type === type)?.value ?? '';
  return `${part('day')} ${part('month').replace('.', '')} ${part('year')}, ${part('hour')}:${part('minute')}`;
}

export function daysUntil(value: string | Date | null | undefined, now: Date = new Date()): number | null {
  const d = toDate(value);
  return d ? differenceInCalendarDays(d, now) : null;
}

const eur = new Intl.NumberFormat('it-IT', { style: 'currency', currency: 'EUR' });
export const formatEuro = (amount: number) => eur.format(amount);
export const formatCents = (cents: number) => eur.format(cents / 100);

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  if (bytes < 1024) return `${bytes} B`;
  const kb = bytes / 1024;
  if (kb < 1024) return `${kb.toFixed(0)} KB`;
  return `${(kb / 1024).toFixed(1).replace('.', ',')} MB`;
}

/** An Italian count with its noun: `countOf(1, 'credito speso', 'crediti spesi')` → "1 credito speso";
 * the plural form for every other number, and for a text such as '…' shown while a value loads. */
export function countOf(n: number | string, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** An Italian count of credits: "1 credito", "0 crediti", "15 crediti". */
export function creditCount(n: number | string): string {
  return countOf(n, 'credito', 'crediti');
}
