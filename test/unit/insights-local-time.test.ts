import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { localUnits, type LocalInterval, type LocalUnit } from '../../src/insights/local-time.js';

/**
 * Local units from offset transitions (local-time.ts) against the wall clock
 * read with luxon at every quarter-hour (months: from luxon's startOf, moved
 * to the first instant that reads the month). Luxon's startOf/plus stepping, which cut buckets before, gives
 * the same units except at Chatham's 02:45 → 03:45, where it stretches hour
 * 02 over 03:45-04:00 and has no hour 03. Zones with every kind of rule: whole, half and 45-minute
 * offsets, 30-minute DST (Lord Howe), clocks changed at local midnight
 * (Santiago, Havana, Asuncion), negative DST (Dublin), Ramadan pauses
 * (Casablanca), a 2-hour shift (Troll), and DST dropped or moved (Apia,
 * Nuuk, Mexico City).
 */
const ZONES = [
  'UTC',
  'America/New_York',
  'America/Los_Angeles',
  'America/St_Johns',
  'America/Santiago',
  'America/Havana',
  'America/Asuncion',
  'America/Nuuk',
  'America/Mexico_City',
  'America/Sao_Paulo',
  'Europe/Berlin',
  'Europe/Dublin',
  'Europe/London',
  'Africa/Casablanca',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Asia/Tehran',
  'Asia/Gaza',
  'Asia/Beirut',
  'Australia/Lord_Howe',
  'Australia/Adelaide',
  'Pacific/Auckland',
  'Pacific/Chatham',
  'Pacific/Apia',
  'Antarctica/Troll',
];
const UNITS: LocalUnit[] = ['hour', 'day', 'month'];
const FORMAT: Record<LocalUnit, string> = { hour: "yyyy-MM-dd'T'HH", day: 'yyyy-MM-dd', month: 'yyyy-MM' };

/**
 * Months from luxon's startOf('month'), moved back to the first instant the
 * wall clock reads the month: where midnight of the 1st repeats (Havana's
 * clocks go back at 01:00 on 2026-11-01), luxon picks the second midnight.
 */
function wallClockMonths(zone: string, fromS: number, toS: number): LocalInterval[] {
  const label = (s: number) => DateTime.fromSeconds(s, { zone }).toFormat(FORMAT.month);
  const firstInstant = (d: DateTime) => {
    let s = d.toSeconds();
    while (label(s - 900) === label(s)) s -= 900;
    return s;
  };
  const out: LocalInterval[] = [];
  let cursor = DateTime.fromSeconds(fromS, { zone }).startOf('month');
  while (firstInstant(cursor) < toS) {
    const next = cursor.plus({ months: 1 }).startOf('month');
    out.push({ startS: firstInstant(cursor), endS: firstInstant(next), label: cursor.toFormat(FORMAT.month) });
    cursor = next;
  }
  return out.filter((u) => u.endS > fromS);
}

/**
 * Hours and days read off the wall clock, one quarter-hour at a time (every
 * offset and transition of these years lies on a UTC quarter-hour): a unit
 * starts where the label changes at a local unit start (minute 0, midnight)
 * or where clocks jump forward; clocks going back leave the unit under way
 * running until the next local unit start.
 */
function wallClockUnits(zone: string, fromS: number, toS: number, unit: 'hour' | 'day'): LocalInterval[] {
  const units: LocalInterval[] = [];
  const margin = unit === 'hour' ? 3 * 3600 : 3 * 86_400;
  let prevOffset: number | null = null;
  for (let q = fromS - margin; q < toS + margin; q += 900) {
    const t = DateTime.fromSeconds(q, { zone });
    const label = t.toFormat(FORMAT[unit]);
    const aligned = t.minute === 0 && (unit === 'hour' || t.hour === 0);
    const last = units[units.length - 1];
    if (last === undefined || (label !== last.label && (aligned || (prevOffset !== null && t.offset > prevOffset)))) {
      if (last !== undefined) last.endS = q;
      units.push({ startS: q, endS: q + 900, label });
    } else last.endS = q + 900;
    prevOffset = t.offset;
  }
  // The first and last units of the scan may be cut off by it; the margin keeps them away from [fromS, toS).
  return units.filter((u) => u.endS > fromS && u.startS < toS);
}

const reference = (zone: string, fromS: number, toS: number, unit: LocalUnit): LocalInterval[] =>
  unit === 'month' ? wallClockMonths(zone, fromS, toS) : wallClockUnits(zone, fromS, toS, unit);

/** Instants where the zone's offset changes in 2023-2026, from luxon, by a 6-hour scan narrowed to the second. */
function transitions(zone: string): number[] {
  const off = (s: number) => DateTime.fromSeconds(s, { zone }).offset;
  const out: number[] = [];
  const end = Date.UTC(2027, 0, 1) / 1000;
  for (let s = Date.UTC(2023, 0, 1) / 1000; s < end; s += 6 * 3600) {
    if (off(s) === off(s + 6 * 3600)) continue;
    let lo = s;
    let hi = s + 6 * 3600;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (off(mid) === off(lo)) lo = mid;
      else hi = mid;
    }
    out.push(hi);
  }
  return out;
}

describe('local units from offset transitions', () => {
  it('equal the wall clock around every offset change of 2023-2026', () => {
    let changes = 0;
    for (const zone of ZONES) {
      for (const t of transitions(zone)) {
        changes++;
        for (const unit of UNITS) {
          const span = unit === 'month' ? 40 * 86_400 : 2 * 86_400;
          const from = Math.floor((t - span) / 900) * 900;
          const to = Math.floor((t + span) / 900) * 900;
          expect(localUnits(zone, from, to, unit), `${zone} ${unit} around ${new Date(t * 1000).toISOString()}`).toEqual(reference(zone, from, to, unit));
        }
      }
    }
    // The scan found the zones' changes (most zones change twice a year).
    expect(changes).toBeGreaterThan(100);
  });

  it('equal the wall clock for random ranges', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.constantFrom(...UNITS),
        fc.integer({ min: Date.UTC(2021, 0, 1) / 900_000, max: Date.UTC(2026, 11, 1) / 900_000 }),
        fc.integer({ min: 1, max: 96 * 10 }),
        (zone, unit, startQ, quarters) => {
          const from = startQ * 900;
          // Months over up to 400 days.
          const to = (startQ + (unit === 'month' ? quarters * 40 : quarters)) * 900;
          expect(localUnits(zone, from, to, unit)).toEqual(reference(zone, from, to, unit));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('splits a repeated hour nowhere and a skipped half hour at the change', () => {
    // Lord Howe, 2026-04-05: 02:00 (+11) becomes 01:30 (+10:30); 2026-10-04: 02:00 (+10:30) becomes 02:30 (+11).
    const cases: [string, number, [string, number][]][] = [
      ['2026-04-05T01:00', 3, [['01', 90], ['02', 60], ['03', 60]]],
      ['2026-10-04T01:00', 2, [['01', 60], ['02', 30], ['03', 60]]],
    ];
    for (const [local, hours, expected] of cases) {
      const from = DateTime.fromISO(local, { zone: 'Australia/Lord_Howe' }).toSeconds();
      const units = localUnits('Australia/Lord_Howe', from, from + hours * 3600, 'hour');
      expect(units.map((h) => [h.label.slice(11), (h.endS - h.startS) / 60])).toEqual(expected);
    }
  });
});
