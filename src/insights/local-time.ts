import { IANAZone } from 'luxon';

/**
 * Local hours, days and months of a timezone as intervals of UTC seconds,
 * computed from the zone's offset transitions instead of date objects.
 *
 * Luxon gives the same intervals, but at 50–90 µs per bucket: an hourly
 * week cost 15 ms of every request before its query ran. Here a zone's
 * transitions are found once per UTC year (its offset sampled daily, each
 * change narrowed to the second) and kept; between two transitions the
 * offset is constant, so local unit starts are plain arithmetic.
 *
 * Units start where the local wall clock reaches a unit start (an hour,
 * a midnight, the 1st of a month); neighbours with the same label
 * (`YYYY-MM-DDTHH`, `YYYY-MM-DD`, `YYYY-MM`) are one unit. At transitions:
 * - clocks going back continue the unit under way until the next local unit
 *   start, so a repeated hour is one unit: two hours long (90 minutes on
 *   Lord Howe, whose clocks move by 30 minutes);
 * - where clocks go forward past a unit's start (at local midnight, or Lord
 *   Howe's 02:00 → 02:30), the unit starts at the transition.
 * test/unit/insights-local-time.test.ts checks these intervals against
 * luxon's calendar arithmetic over every transition of many zones.
 */
export type LocalUnit = 'hour' | 'day' | 'month';

export interface LocalInterval {
  startS: number;
  endS: number;
  /** The unit's local label: `YYYY-MM-DDTHH`, `YYYY-MM-DD` or `YYYY-MM`. */
  label: string;
}

interface Stretch {
  /** First instant with this offset (or the start of the year looked at). */
  fromS: number;
  offsetS: number;
}

const DAY_S = 86_400;
const LABEL_LENGTH: Record<LocalUnit, number> = { hour: 13, day: 10, month: 7 };
/** More than the longest unit: the interval holding a given instant always starts inside this margin before it. */
const MARGIN_S: Record<LocalUnit, number> = { hour: 3 * 3600, day: 3 * DAY_S, month: 33 * DAY_S };

function offsetAt(zone: IANAZone, s: number): number {
  const minutes = zone.offset(s * 1000);
  if (!Number.isFinite(minutes)) throw new Error(`unknown timezone ${zone.name}`);
  return minutes * 60;
}

const yearCache = new Map<string, Stretch[]>();

/**
 * The offsets of one UTC year: the offset at its start, then one stretch per
 * transition. Sampled once a day: two transitions less than a day apart that
 * cancel out would be missed, and no zone has had such a pair in recent
 * decades (the API's ranges reach back 5 years).
 */
function yearStretches(zoneName: string, year: number): Stretch[] {
  const key = `${zoneName}\u0000${year}`;
  const kept = yearCache.get(key);
  if (kept !== undefined) return kept;
  const zone = IANAZone.create(zoneName);
  const from = Date.UTC(year, 0, 1) / 1000;
  const to = Date.UTC(year + 1, 0, 1) / 1000;
  const out: Stretch[] = [{ fromS: from, offsetS: offsetAt(zone, from) }];
  let prevS = from;
  let prevOffset = out[0]?.offsetS ?? 0;
  for (let s = from + DAY_S; prevS < to; s = Math.min(s + DAY_S, to)) {
    const o = offsetAt(zone, s);
    if (o !== prevOffset) {
      // The first second of the new offset, between prevS (old) and s (new).
      let lo = prevS;
      let hi = s;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (offsetAt(zone, mid) === prevOffset) lo = mid;
        else hi = mid;
      }
      out.push({ fromS: hi, offsetS: o });
      prevOffset = o;
    }
    prevS = s;
  }
  if (yearCache.size >= 2000) yearCache.clear();
  yearCache.set(key, out);
  return out;
}

/** The stretches of constant offset covering [fromS, toS), in order (the first may start before fromS). */
function stretches(zone: string, fromS: number, toS: number): Stretch[] {
  const out: Stretch[] = [];
  for (let y = new Date(fromS * 1000).getUTCFullYear(); Date.UTC(y, 0, 1) / 1000 < toS; y++) {
    for (const st of yearStretches(zone, y)) {
      const last = out[out.length - 1];
      if (last === undefined || st.offsetS !== last.offsetS) out.push(st);
    }
  }
  return out;
}

/** The first local unit start at or after local time `l` (seconds of the local wall clock, read as UTC). */
function alignUp(l: number, unit: LocalUnit): number {
  if (unit === 'hour') return Math.ceil(l / 3600) * 3600;
  if (unit === 'day') return Math.ceil(l / DAY_S) * DAY_S;
  const d = new Date(l * 1000);
  const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  return first === l ? l : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

function nextStart(l: number, unit: LocalUnit): number {
  if (unit === 'hour') return l + 3600;
  if (unit === 'day') return l + DAY_S;
  const d = new Date(l * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

const labelOf = (localS: number, unit: LocalUnit): string => new Date(localS * 1000).toISOString().slice(0, LABEL_LENGTH[unit]);

/** The zone's local units that overlap [fromS, toS), whole (not clipped), in order. */
export function localUnits(zone: string, fromS: number, toS: number, unit: LocalUnit): LocalInterval[] {
  const lo = fromS - MARGIN_S[unit];
  const hi = toS + MARGIN_S[unit];
  // Candidate starts: every local unit start, and every transition; equal neighbouring labels are merged after.
  const starts: { s: number; label: string }[] = [];
  const all = stretches(zone, lo, hi);
  all.forEach((st, i) => {
    const begin = Math.max(st.fromS, lo);
    const end = Math.min(all[i + 1]?.fromS ?? hi, hi);
    if (begin >= end) return;
    // A transition starts a unit only where clocks go forward (the unit's own start was skipped); going back, the
    // repeated local times continue the unit under way, and the next local unit start ends it.
    const prev = all[i - 1];
    if (i === 0 || begin === lo || (prev !== undefined && st.offsetS > prev.offsetS)) starts.push({ s: begin, label: labelOf(begin + st.offsetS, unit) });
    for (let l = alignUp(begin + st.offsetS, unit); l - st.offsetS < end; l = nextStart(l, unit)) {
      if (l - st.offsetS !== starts[starts.length - 1]?.s) starts.push({ s: l - st.offsetS, label: labelOf(l, unit) });
    }
  });
  const merged = starts.filter((c, i) => i === 0 || c.label !== starts[i - 1]?.label);
  const out: LocalInterval[] = [];
  for (let i = 0; i + 1 < merged.length; i++) {
    const cur = merged[i] as { s: number; label: string };
    const endS = (merged[i + 1] as { s: number }).s;
    if (endS > fromS && cur.s < toS) out.push({ startS: cur.s, endS, label: cur.label });
  }
  return out;
}
