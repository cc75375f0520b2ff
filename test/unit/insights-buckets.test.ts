import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { bucketsOf } from '../../src/insights/buckets.js';

/**
 * Local buckets across every DST change of 2024-2026 in zones with whole-hour,
 * half-hour and 45-minute offsets and a 30-minute DST shift (Lord Howe).
 */
const ZONES = ['America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Auckland'];

/** Instants (seconds) where the zone's UTC offset changes, found by a 15-minute scan. */
function offsetChanges(zone: string): { at: number; shiftMin: number }[] {
  const out: { at: number; shiftMin: number }[] = [];
  let t = DateTime.fromISO('2024-01-01T00:00Z').toSeconds();
  const end = DateTime.fromISO('2027-01-01T00:00Z').toSeconds();
  let prev = DateTime.fromSeconds(t, { zone }).offset;
  for (; t < end; t += 900) {
    const off = DateTime.fromSeconds(t, { zone }).offset;
    if (off !== prev) out.push({ at: t, shiftMin: off - prev });
    prev = off;
  }
  return out;
}

describe('local buckets at DST changes', () => {
  for (const zone of ZONES) {
    it(`${zone}: each change day is 24 h minus the shift, with contiguous unique hours`, () => {
      const changes = offsetChanges(zone);
      if (zone.startsWith('Asia/')) expect(changes).toEqual([]);
      else expect(changes).toHaveLength(6);
      for (const { at, shiftMin } of changes) {
        const day = DateTime.fromSeconds(at, { zone }).startOf('day');
        const range = { startS: day.minus({ days: 1 }).toSeconds(), endS: day.plus({ days: 2 }).toSeconds(), timezone: zone };
        const days = bucketsOf(range, 'daily');
        expect(days.map((b) => (b.endS - b.startS) / 60)).toEqual([1440, 1440 - shiftMin, 1440]);
        const hours = bucketsOf(range, 'hourly');
        // No gap, no overlap, no repeated label; together they are the range.
        expect(hours[0]?.startS).toBe(range.startS);
        expect(hours[hours.length - 1]?.endS).toBe(range.endS);
        for (let i = 1; i < hours.length; i++) expect(hours[i]?.startS).toBe(hours[i - 1]?.endS);
        expect(new Set(hours.map((h) => h.readable)).size).toBe(hours.length);
        // Each local hour of the three days appears once: 72 labels, less one skipped or none repeated-away.
        const labels = new Set<string>();
        for (let t = range.startS; t < range.endS; t += 900) labels.add(DateTime.fromSeconds(t, { zone }).toFormat("yyyy-MM-dd'T'HH"));
        expect(hours.map((h) => h.readable)).toEqual([...labels]);
        // Every quarter-hour lies in exactly one bucket: bounds on quarter-hours, lengths adding up to the range.
        expect(hours.every((h) => h.startS % 900 === 0 && h.endS % 900 === 0)).toBe(true);
        expect(hours.reduce((n, h) => n + (h.endS - h.startS) / 900, 0)).toBe((range.endS - range.startS) / 900);
      }
    });
  }

  it('clips the first and last bucket to the range and labels months', () => {
    const range = { startS: DateTime.fromISO('2026-01-15T10:00', { zone: 'Asia/Kathmandu' }).toSeconds(), endS: DateTime.fromISO('2026-03-02T00:00', { zone: 'Asia/Kathmandu' }).toSeconds(), timezone: 'Asia/Kathmandu' };
    const months = bucketsOf(range, 'monthly');
    expect(months.map((m) => m.readable)).toEqual(['2026-01', '2026-02', '2026-03']);
    expect(months[0]?.startS).toBe(range.startS);
    expect(months[2]?.endS).toBe(range.endS);
    expect(bucketsOf(range, 'none')).toEqual([{ startS: range.startS, endS: range.endS, readable: null }]);
  });
});
