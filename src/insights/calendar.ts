import { QUARTER_HOUR_S, type Bucket, type Granularity } from './buckets.js';
import { localUnits } from './local-time.js';

/**
 * Calendar rollups. Beside the 15-minute UTC rollup, the loader keeps sums per
 * local day and per local month of one timezone per account (its calendar
 * zone, fixed when the account's first events load; see rollup_calendars).
 * A day or month unit is an interval of UTC seconds; stored rows are keyed by
 * the unit's first quarter-hour. A request is served by covering each of its
 * buckets with the largest units that lie wholly inside it: months, then
 * days, then quarter-hours for what is left (range edges, other zones,
 * hourly buckets). Units of a zone that does not match the request's simply
 * fit nowhere, so any zone is answered exactly, and its own zone quickly.
 */
export type CalendarUnit = 'day' | 'month';

export interface Interval {
  startS: number;
  endS: number;
}

/** The zone's local days or months that overlap [startS, endS), unclipped, in order. */
export function calendarUnits(startS: number, endS: number, timezone: string, unit: CalendarUnit): Interval[] {
  return localUnits(timezone, startS, endS, unit).map((u) => ({ startS: u.startS, endS: u.endS }));
}

/** Rollup grains, coarsest first. */
export const GRAINS = ['month', 'day', 'quarter'] as const;
export type Grain = (typeof GRAINS)[number];
export const GRAIN_TABLE: Record<Grain, string> = { month: 'rollup_1mo', day: 'rollup_1d', quarter: 'rollup_15m' };

/**
 * First quarter-hour of each unit read, the bucket it goes to, and whether it
 * adds to it (1) or is taken away (-1); per grain.
 */
export type Cover = Record<Grain, { firstQuarter: number[]; bucketIndex: number[]; sign: number[] }>;

/**
 * A month costs about as much to read as this many of its days (one row per
 * key against one per key and day; the month rows are a little denser).
 */
const MONTH_READ_DAYS = 2;

/**
 * The days of `month` outside `part`, when reading the month and taking them
 * away reads less than the days inside: a range ending yesterday reads this
 * month less its last days, which hold no data yet. Null when that is not
 * cheaper, or when a day of the month straddles an edge of the part.
 */
function daysToTakeAway(month: Interval, part: Interval, zone: string): Interval[] | null {
  const days = calendarUnits(month.startS, month.endS, zone, 'day');
  const inside = days.filter((d) => d.startS >= part.startS && d.endS <= part.endS).length;
  const outside = days.filter((d) => d.endS <= part.startS || d.startS >= part.endS);
  if (inside + outside.length !== days.length || outside.length + MONTH_READ_DAYS >= inside) return null;
  return outside;
}

/**
 * Covers every bucket exactly once with calendar units of `calendarZone`
 * (null: the account has no calendar rollups yet) and quarter-hours. A
 * month that a bucket holds only in part may be read whole, its days
 * outside the bucket taken away (sums are exact integers, so the
 * difference is exact).
 */
export function coverBuckets(buckets: readonly Bucket[], granularity: Granularity, calendarZone: string | null): Cover {
  const cover: Cover = {
    month: { firstQuarter: [], bucketIndex: [], sign: [] },
    day: { firstQuarter: [], bucketIndex: [], sign: [] },
    quarter: { firstQuarter: [], bucketIndex: [], sign: [] },
  };
  const take = (grain: Grain, startS: number, b: number, sign = 1) => {
    cover[grain].firstQuarter.push(startS / QUARTER_HOUR_S);
    cover[grain].bucketIndex.push(b);
    cover[grain].sign.push(sign);
  };
  buckets.forEach((bucket, b) => {
    // Parts of the bucket not yet covered, in order.
    let open: Interval[] = [{ startS: bucket.startS, endS: bucket.endS }];
    if (calendarZone !== null && granularity !== 'hourly') {
      const grains: CalendarUnit[] = granularity === 'daily' ? ['day'] : ['month', 'day'];
      for (const unit of grains) {
        const rest: Interval[] = [];
        for (const part of open) {
          let at = part.startS;
          for (const u of calendarUnits(part.startS, part.endS, calendarZone, unit)) {
            const whole = u.startS >= part.startS && u.endS <= part.endS;
            const away = whole || unit !== 'month' ? null : daysToTakeAway(u, part, calendarZone);
            if (!whole && away === null) continue;
            const from = Math.max(u.startS, part.startS);
            if (from > at) rest.push({ startS: at, endS: from });
            take(unit, u.startS, b);
            for (const d of away ?? []) take('day', d.startS, b, -1);
            at = Math.min(u.endS, part.endS);
          }
          if (at < part.endS) rest.push({ startS: at, endS: part.endS });
        }
        open = rest;
      }
    }
    for (const part of open) for (let s = part.startS; s < part.endS; s += QUARTER_HOUR_S) take('quarter', s, b);
  });
  return cover;
}
