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
          // Net reads per (bucket, quarter-hour).
          const seen = new Map<string, number>();
          const problems: string[] = [];
          for (const grain of GRAINS) {
            cover[grain].firstQuarter.forEach((q, i) => {
              const bucket = buckets[cover[grain].bucketIndex[i] as number];
              const sign = cover[grain].sign[i] as number;
              const unit = grain === 'quarter' ? { startS: q * QUARTER_HOUR_S, endS: (q + 1) * QUARTER_HOUR_S } : calendarUnits(q * QUARTER_HOUR_S, q * QUARTER_HOUR_S + 1, calendarZone ?? 'UTC', grain)[0];
              // Calendar units start where the calendar zone's days and months do, and lie inside their bucket.
              if (bucket === undefined || unit === undefined || unit.startS !== q * QUARTER_HOUR_S) problems.push(`${grain} ${q}: not a unit start`);
              // A unit taken away (a day of a month read whole) lies outside the bucket; every other unit inside it.
              else if (sign === 1 && grain !== 'month' && (unit.startS < bucket.startS || unit.endS > bucket.endS)) problems.push(`${grain} ${q}: outside its bucket`);
              else if (sign === -1 && unit.endS > bucket.startS && unit.startS < bucket.endS) problems.push(`${grain} ${q}: taken away inside its bucket`);
              else {
                for (let s = unit.startS; s < unit.endS; s += QUARTER_HOUR_S) {
                  const key = `${cover[grain].bucketIndex[i]}:${s}`;
                  seen.set(key, (seen.get(key) ?? 0) + sign);
                }
              }
            });
          }
          // Net of what is taken away, each quarter-hour of the range is read once, into its own bucket, and nothing else is.
          for (const [key, n] of seen) if (n === 0) seen.delete(key);
          for (const [key, n] of seen) {
            const [b, s] = key.split(':').map(Number) as [number, number];
            const bucket = buckets[b];
            if (n !== 1 || bucket === undefined || s < bucket.startS || s >= bucket.endS) problems.push(`bucket ${b}, ${s}: read ${n} times`);
          }
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
    // A range ending on the 23rd reads its last month whole, less the 7 days after it; one ending on the 5th reads 5 days.
    const to23rd = coverBuckets(bucketsOf({ ...range, endS: DateTime.fromISO('2025-11-24T00:00', { zone }).toSeconds() }, 'none'), 'none', zone);
    expect([to23rd.month.firstQuarter.length, to23rd.day.sign, to23rd.quarter.firstQuarter.length]).toEqual([11, [-1, -1, -1, -1, -1, -1, -1], 0]);
    const to5th = coverBuckets(bucketsOf({ ...range, endS: DateTime.fromISO('2025-11-06T00:00', { zone }).toSeconds() }, 'none'), 'none', zone);
    expect([to5th.month.firstQuarter.length, to5th.day.sign, to5th.quarter.firstQuarter.length]).toEqual([10, [1, 1, 1, 1, 1], 0]);
    const utc = coverBuckets(bucketsOf(range, 'daily'), 'daily', 'UTC');
    expect([utc.day.firstQuarter.length, utc.quarter.firstQuarter.length]).toEqual([0, 365 * 96]);
  });
});
