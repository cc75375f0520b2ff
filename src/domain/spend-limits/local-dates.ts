import { DateTime } from 'luxon';
import type { Clock } from '../../clock.js';

/**
 * Calendar dates of the account timezone as `YYYY-MM-DD` text. Arithmetic is
 * on the calendar (a DST day is an ordinary day), and the text sorts in date
 * order, so dates compare as strings.
 */
export const DATE_MIN = '2000-01-01';
export const DATE_MAX = '2100-01-01';

/** A real calendar date written `YYYY-MM-DD` (`2026-02-30` is not one). */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = DateTime.fromISO(text, { zone: 'UTC' });
  return d.isValid && d.toISODate() === text;
}

export function todayIn(clock: Clock, timezone: string): string {
  return DateTime.fromMillis(clock.nowMs(), { zone: timezone }).toISODate() as string;
}

export function addDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate() as string;
}

/** The instant a local date begins in the zone, as ISO 8601 with its offset. */
export function midnightOf(date: string, timezone: string): string {
  return DateTime.fromISO(date, { zone: timezone }).startOf('day').toISO({ suppressMilliseconds: true }) as string;
}

export const maxDate = (...dates: (string | null | undefined)[]): string =>
  dates.filter((d): d is string => typeof d === 'string').reduce((a, b) => (a > b ? a : b));
