/**
 * When a failed delivery is tried again (spec, Events 5: retried with
 * exponentially increasing delays for up to 72 hours). After the n-th failed
 * attempt the next is due FIRST_DELAY * GROWTH^(n-1) later (5 s, 15 s, 45 s,
 * 2.25 min, ... capped at 8 h), plus up to 25% random jitter so that many
 * deliveries failing together do not come back together, and never later
 * than the deadline, 72 hours after the first attempt. The attempt made at
 * (or, after downtime, past) the deadline is the last one.
 *
 * `scale` (ADSVC_WEBHOOK_TIME_SCALE) multiplies every delay and the deadline,
 * so tests run the whole schedule in seconds.
 */
export const RETRY_WINDOW_MS = 72 * 3_600_000;
export const FIRST_RETRY_DELAY_MS = 5_000;
export const RETRY_GROWTH = 3;
export const MAX_RETRY_DELAY_MS = 8 * 3_600_000;
export const RETRY_JITTER = 0.25;

/** The delay after `failedAttempts` (1 or more) failures, jitter included. */
export function retryDelayMs(failedAttempts: number, scale: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * RETRY_GROWTH ** Math.max(0, failedAttempts - 1));
  return Math.round(base * (1 + RETRY_JITTER * random()) * scale);
}

/** The end of the retry window of a delivery first attempted at `firstAttemptAtMs`. */
export function retryDeadline(firstAttemptAtMs: number, scale: number): number {
  return firstAttemptAtMs + Math.round(RETRY_WINDOW_MS * scale);
}

/**
 * When to try again after attempt number `failedAttempts` failed at `nowMs`;
 * null when that attempt was made at or after the deadline (the delivery has failed).
 */
export function nextAttemptAt(p: { failedAttempts: number; nowMs: number; deadlineAtMs: number; scale: number; random?: () => number }): number | null {
  if (p.nowMs >= p.deadlineAtMs) return null;
  return Math.min(p.nowMs + retryDelayMs(p.failedAttempts, p.scale, p.random), p.deadlineAtMs);
}
