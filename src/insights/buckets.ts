import { localUnits } from './local-time.js';
import type { ResolvedRange } from './time-range.js';

/**
 * Report buckets cut in the range's timezone: local hours, days or months
 * (23- and 25-hour days at DST changes), or one bucket for the whole range.
 * The first and last bucket are clipped to the range. Rollups are kept per
 * 15-minute UTC quarter-hour, and every zone offset is a multiple of 15
 * minutes, so a quarter-hour lies in exactly one bucket of any zone: the
 * query covers each bucket with rollup units (calendar.ts), places
 * attributions by a range join with the buckets' UTC intervals, and no
 * timezone function ever runs over rollup or event rows.
 */
export const GRANULARITIES = ['hourly', 'daily', 'monthly', 'none'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const QUARTER_HOUR_S = 900;

export interface Bucket {
  startS: number;
  endS: number;
  /** `YYYY-MM-DDTHH`, `YYYY-MM-DD`, `YYYY-MM`, or null for `none`. */
  readable: string | null;
}

const UNIT = { hourly: 'hour', daily: 'day', monthly: 'month' } as const;

export function bucketsOf(range: ResolvedRange, granularity: Granularity): Bucket[] {
  if (granularity === 'none') return [{ startS: range.startS, endS: range.endS, readable: null }];
  // Local units (local-time.ts): the hour repeated when clocks go back is one bucket (two hours long; 90 minutes on Lord Howe), so labels stay unique.
  return localUnits(range.timezone, range.startS, range.endS, UNIT[granularity]).map((u) => ({
    startS: Math.max(u.startS, range.startS),
    endS: Math.min(u.endS, range.endS),
    readable: u.label,
  }));
}
