import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { bucketsOf, QUARTER_HOUR_S, type Granularity } from '../../src/insights/buckets.js';
import { calendarUnits, coverBuckets, GRAINS } from '../../src/insights/calendar.js';

/**
 * Covering buckets with calendar units: whatever the request's zone and the
 * calendar's zone, every quarter-hour of the range is read exactly once, into
 * the bucket that holds it; in the calendar's own zone, whole days and months
 * come from the calendar rollups.
 */
const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Auckland'];
const GRANULARITIES: Granularity[] = ['hourly', 'daily', 'monthly', 'none'];

describe('calendar cover', () => {
  it('reads every quarter-hour once, into its own bucket, for any pair of zones', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2024, 0, 1) / 3_600_000, max: Date.UTC(2026, 9, 1) / 3_600_000 }),
        fc.integer({ min: 1, max: 24 * 80 }),
        fc.constantFrom(...ZONES),
        fc.option(fc.constantFrom(...ZONES), { nil: null }),
        fc.constantFrom(...GRANULARITIES),
        (startH, hours, zone, calendarZone, granularity) => {
          const range = { startS: startH * 3600, endS: (startH + hours) * 3600, timezone: zone };
          const buckets = bucketsOf(range, granularity);
          const cover = coverBuckets(buckets, granularity, calendarZone);
          const seen = new Map<number, number>();
          const problems: string[] = [];
          for (const grain of GRAINS) {
            cover[grain].firstQuarter.forEach((q, i) => {
              const bucket = buckets[cover[grain].bucketIndex[i] as number];
              const unit = grain === 'quarter' ? { startS: q * QUARTER_HOUR_S, endS: (q + 1) * QUARTER_HOUR_S } : calendarUnits(q * QUARTER_HOUR_S, q * QUARTER_HOUR_S + 1, calendarZone ?? 'UTC', grain)[0];
              // Calendar units start where the calendar zone's days and months do, and lie inside their bucket.
              if (bucket === undefined || unit === undefined || unit.startS !== q * QUARTER_HOUR_S) problems.push(`${grain} ${q}: not a unit start`);
              else if (unit.startS < bucket.startS || unit.endS > bucket.endS) problems.push(`${grain} ${q}: outside its bucket`);
              else for (let s = unit.startS; s < unit.endS; s += QUARTER_HOUR_S) seen.set(s, (seen.get(s) ?? 0) + 1);
            });
          }
          for (const [s, n] of seen) if (n !== 1 || s < range.startS || s >= range.endS) problems.push(`${s} read ${n} times`);
          expect(problems).toEqual([]);
          expect(seen.size).toBe((range.endS - range.startS) / QUARTER_HOUR_S);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('serves whole local days and months in the calendar zone from the calendar rollups', () => {
    const zone = 'Asia/Kolkata';
    const start = DateTime.fromISO('2025-01-01T00:00', { zone });
    const range = { startS: start.toSeconds(), endS: start.plus({ days: 365 }).toSeconds(), timezone: zone };
    const none = coverBuckets(bucketsOf(range, 'none'), 'none', zone);
    expect([none.month.firstQuarter.length, none.day.firstQuarter.length, none.quarter.firstQuarter.length]).toEqual([12, 0, 0]);
    const daily = coverBuckets(bucketsOf(range, 'daily'), 'daily', zone);
    expect([daily.month.firstQuarter.length, daily.day.firstQuarter.length, daily.quarter.firstQuarter.length]).toEqual([0, 365, 0]);
    // Ragged edges (from 05:00 local) fall back to quarter-hours; another zone's days fit nowhere.
    const ragged = { ...range, startS: range.startS + 5 * 3600 };
    const r = coverBuckets(bucketsOf(ragged, 'monthly'), 'monthly', zone);
    expect([r.month.firstQuarter.length, r.day.firstQuarter.length, r.quarter.firstQuarter.length]).toEqual([11, 30, 19 * 4]);
    const utc = coverBuckets(bucketsOf(range, 'daily'), 'daily', 'UTC');
    expect([utc.day.firstQuarter.length, utc.quarter.firstQuarter.length]).toEqual([0, 365 * 96]);
  });
});
