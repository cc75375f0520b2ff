import { MINUTE_MS, type GrowthRule, type WindowState } from './rate-limit-types.js';

/**
 * The limiter's arithmetic, free of storage. The in-memory backend calls it
 * directly; the Redis backend's Lua script repeats it line for line (see
 * redis-backend.ts), and a test runs both over one trace to keep them equal.
 */

/**
 * A sliding log cannot be burst to twice its limit at a window edge (issue
 * 9): a request is admitted only when fewer than `limit` requests were
 * admitted in the `windowMs` before it, whatever the clock's minute says.
 * `entries` are the admitted times still in the window, oldest first.
 * Returns 0 when there is room, else how long until the entry that blocks
 * leaves the window.
 */
export function windowWait(entries: readonly number[], nowMs: number, windowMs: number, limit: number): number {
  if (entries.length < limit) return 0;
  const blocking = entries[entries.length - limit] as number;
  return Math.max(1, blocking + windowMs - nowMs);
}

/** Entries at or before this time have left the window. */
export const windowStart = (nowMs: number, windowMs: number): number => nowMs - windowMs;

export const minuteOf = (ms: number): number => Math.floor(ms / MINUTE_MS);

/**
 * The most requests the last minute may hold, during calendar minute
 * `minute`, under the growth rule: the threshold, or the busiest minute of
 * the reference span grown by the allowed percentage. The reference span is
 * the `windowMinutes` minutes ending `windowMinutes` minutes before, so an
 * account can grow by the percentage once per window and no faster, while a
 * steady or periodic rate always fits.
 */
export function growthCap(countAt: (minute: number) => number, minute: number, rule: GrowthRule): number {
  let busiest = 0;
  for (let m = minute - 2 * rule.windowMinutes + 1; m <= minute - rule.windowMinutes; m++) busiest = Math.max(busiest, countAt(m));
  return Math.max(rule.threshold, Math.floor((busiest * (100 + rule.growthPercent)) / 100));
}

/** Minutes of counts the growth rule reads, the current one included. */
export const growthSpanMinutes = (rule: GrowthRule): number => 2 * rule.windowMinutes;


/**
 * What the `x-ratelimit-*-requests` headers report: the window closest to
 * its limit. `resetMs` is how long until its oldest counted request leaves the
 * window, which is when `remaining` next rises.
 */
export function tightestWindow(windows: readonly WindowState[], nowMs: number, windowMs: number): { limit: number; remaining: number; resetMs: number } | null {
  let best: { limit: number; remaining: number; resetMs: number } | null = null;
  for (const w of windows) {
    const remaining = Math.max(0, w.limit - w.count);
    const resetMs = w.oldestMs === null ? 0 : Math.max(0, w.oldestMs + windowMs - nowMs);
    if (best === null || remaining < best.remaining || (remaining === best.remaining && w.limit < best.limit)) best = { limit: w.limit, remaining, resetMs };
  }
  return best;
}
