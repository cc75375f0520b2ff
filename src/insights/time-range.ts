import { DateTime } from 'luxon';
import { z } from 'zod';
import { canonicalTimezone } from '../domain/timezones.js';
import { ApiError } from '../errors/api-error.js';

/**
 * The `time_ranges` parameter of GET insights (spec: Insights (GET),
 * time-range object): one JSON-encoded object in one of three forms, resolved
 * to a half-open UTC range [start, end) on full local hours of its timezone
 * (the range's own `timezone`, else the account's).
 *
 * Our choices where the spec is silent (README, Insights):
 * - hour_range `until` is inclusive like date_range's: `until=2026-05-01T13`
 *   ends at 14:00 local;
 * - a missing lower bound means 30 days before the upper one; a missing upper
 *   bound means now (rounded up to the hour); no `time_ranges` at all means
 *   the last 7 local days through today;
 * - "within the past 5 years and not in the future" is judged in the range's
 *   timezone, on the bounds as sent: today's date is never in the future, even
 *   where it is already tomorrow in UTC (the public API gets this wrong).
 */
const PARAM = 'time_ranges';
const LOCAL_HOUR = /^\d{4}-\d{2}-\d{2}T\d{2}$/;
const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/;

const unixSeconds = z.number().int().min(0).max(32_503_680_000);
const zone = z.string().min(1).max(64).optional();

export const TimeRangeInput = z.discriminatedUnion('type', [
  z.object({ type: z.literal('unix_range'), start: unixSeconds.optional(), end: unixSeconds.optional() }).strict(),
  z
    .object({
      type: z.literal('hour_range'),
      since: z.string().regex(LOCAL_HOUR, 'must be YYYY-MM-DDTHH').optional(),
      until: z.string().regex(LOCAL_HOUR, 'must be YYYY-MM-DDTHH').optional(),
      timezone: zone,
    })
    .strict(),
  z
    .object({
      type: z.literal('date_range'),
      since: z.string().regex(LOCAL_DATE, 'must be YYYY-MM-DD').optional(),
      until: z.string().regex(LOCAL_DATE, 'must be YYYY-MM-DD').optional(),
      timezone: zone,
    })
    .strict(),
]);
export type TimeRangeInput = z.infer<typeof TimeRangeInput>;

export interface ResolvedRange {
  /** Unix seconds, inclusive; a full local hour. */
  startS: number;
  /** Unix seconds, exclusive; a full local hour. */
  endS: number;
  /** IANA zone that cuts buckets and judges full hours and days. */
  timezone: string;
}

const fail = (message: string) => new ApiError('invalid_value', message, { param: PARAM });
const DEFAULT_SPAN_DAYS = 30;
const MAX_AGE_YEARS = 5;

function zoneOf(input: TimeRangeInput, accountTimezone: string): string {
  if (input.type === 'unix_range' || input.timezone === undefined) return accountTimezone;
  const tz = canonicalTimezone(input.timezone);
  if (tz === null) throw fail(`timezone '${input.timezone}' is not an IANA timezone name.`);
  return tz;
}

function local(text: string, tz: string, what: string): DateTime {
  const t = DateTime.fromISO(text, { zone: tz });
  if (!t.isValid) throw fail(`${what} '${text}' is not a valid local time.`);
  return t;
}

/** Resolves the parameter's one object (already JSON-parsed), or the default when absent. */
export function resolveTimeRange(input: TimeRangeInput | undefined, accountTimezone: string, nowMs: number): ResolvedRange {
  if (input === undefined) {
    const today = DateTime.fromMillis(nowMs, { zone: accountTimezone }).startOf('day');
    return { startS: today.minus({ days: 6 }).toSeconds(), endS: today.plus({ days: 1 }).toSeconds(), timezone: accountTimezone };
  }
  const tz = zoneOf(input, accountTimezone);
  const now = DateTime.fromMillis(nowMs, { zone: tz });
  const earliest = now.startOf('day').minus({ years: MAX_AGE_YEARS });
  let start: DateTime | undefined;
  let end: DateTime | undefined;
  // Each bound is checked as sent, then turned into an instant.
  const check = (t: DateTime, what: string, latest: DateTime) => {
    if (t > latest) throw fail(`${what} is in the future (judged in ${tz}).`);
    if (t < earliest) throw fail(`${what} is more than ${MAX_AGE_YEARS} years in the past.`);
  };
  switch (input.type) {
    case 'unix_range': {
      if (input.start === undefined && input.end === undefined) throw fail('unix_range needs start, end or both.');
      if (input.start !== undefined) check((start = DateTime.fromSeconds(input.start, { zone: tz })), 'start', now);
      if (input.end !== undefined) check((end = DateTime.fromSeconds(input.end, { zone: tz })), 'end', now.endOf('hour'));
      break;
    }
    case 'hour_range': {
      if (input.since === undefined && input.until === undefined) throw fail('hour_range needs since, until or both.');
      if (input.since !== undefined) check((start = local(input.since, tz, 'since')), 'since', now.startOf('hour'));
      if (input.until !== undefined) {
        const until = local(input.until, tz, 'until');
        check(until, 'until', now.startOf('hour'));
        end = until.plus({ hours: 1 });
      }
      break;
    }
    case 'date_range': {
      if (input.since === undefined && input.until === undefined) throw fail('date_range needs since, until or both.');
      if (input.since !== undefined) check((start = local(input.since, tz, 'since')), 'since', now.startOf('day'));
      if (input.until !== undefined) {
        const until = local(input.until, tz, 'until');
        check(until, 'until', now.startOf('day'));
        end = until.plus({ days: 1 }).startOf('day');
      }
      break;
    }
  }
  end ??= now;
  start ??= DateTime.max(end.minus({ days: DEFAULT_SPAN_DAYS }), earliest);
  // Full local hours: the start down, the end up.
  const startS = start.startOf('hour').toSeconds();
  const endHour = end.startOf('hour');
  const endS = (endHour.toMillis() === end.toMillis() ? end : endHour.plus({ hours: 1 })).toSeconds();
  if (endS <= startS) throw fail('The time range is empty: its end must be after its start.');
  return { startS, endS, timezone: tz };
}

/** Local midnight check for conversion metrics: full days in the account timezone, at most 365 of them. */
export function checkConversionSpan(range: ResolvedRange, accountTimezone: string): void {
  const start = DateTime.fromSeconds(range.startS, { zone: accountTimezone });
  const end = DateTime.fromSeconds(range.endS, { zone: accountTimezone });
  if (!start.equals(start.startOf('day')) || !end.equals(end.startOf('day'))) {
    throw fail(`Conversion and sales metrics need full days in the account timezone (${accountTimezone}); use a date_range or local midnights.`);
  }
  if (end.diff(start, 'days').days > 365) throw fail('Conversion and sales metrics span at most 365 days.');
}
