import { describe, expect, it } from 'vitest';
import { FIRST_RETRY_DELAY_MS, MAX_RETRY_DELAY_MS, nextAttemptAt, RETRY_JITTER, RETRY_WINDOW_MS, retryDeadline, retryDelayMs } from '../../src/webhooks/retry-schedule.js';

const none = () => 0;
const most = () => 0.999999;

describe('webhook retry schedule', () => {
  it('grows exponentially from 5 s up to the cap', () => {
    const delays = Array.from({ length: 12 }, (_, i) => retryDelayMs(i + 1, 1, none));
    expect(delays[0]).toBe(FIRST_RETRY_DELAY_MS);
    for (let i = 1; i < delays.length; i++) {
      const [prev, cur] = [delays[i - 1] as number, delays[i] as number];
      expect(cur === MAX_RETRY_DELAY_MS || cur === prev * 3).toBe(true);
      expect(cur).toBeGreaterThanOrEqual(prev);
    }
    expect(delays.at(-1)).toBe(MAX_RETRY_DELAY_MS);
  });

  it('adds at most 25% jitter, never less than the base', () => {
    for (let n = 1; n <= 20; n++) {
      const base = retryDelayMs(n, 1, none);
      const high = retryDelayMs(n, 1, most);
      expect(high).toBeGreaterThan(base);
      expect(high).toBeLessThanOrEqual(Math.round(base * (1 + RETRY_JITTER)));
      const random = retryDelayMs(n, 1);
      expect(random).toBeGreaterThanOrEqual(base);
      expect(random).toBeLessThanOrEqual(high);
    }
  });

  it('scales every delay and the deadline by the time scale', () => {
    expect(retryDelayMs(3, 0.001, none)).toBe(Math.round(retryDelayMs(3, 1, none) * 0.001));
    expect(retryDeadline(1000, 1)).toBe(1000 + RETRY_WINDOW_MS);
    expect(retryDeadline(1000, 0.0001)).toBe(1000 + Math.round(RETRY_WINDOW_MS * 0.0001));
  });

  it('tries for 72 hours, the last attempt exactly at the deadline, then gives up', () => {
    const first = 1_000_000;
    const deadline = retryDeadline(first, 1);
    let now = first;
    const times = [now];
    for (let n = 1; ; n++) {
      const next = nextAttemptAt({ failedAttempts: n, nowMs: now, deadlineAtMs: deadline, scale: 1, random: most });
      if (next === null) break;
      expect(next).toBeGreaterThan(now);
      now = next;
      times.push(now);
      expect(n).toBeLessThan(100);
    }
    expect(times.at(-1)).toBe(deadline);
    expect(times.filter((t) => t >= deadline)).toHaveLength(1);
    // Many attempts, early ones close together, none closer than the first delay.
    expect(times.length).toBeGreaterThan(10);
    expect(times.length).toBeLessThan(40);
  });

  it('gives up on an attempt made after the deadline (late after downtime)', () => {
    expect(nextAttemptAt({ failedAttempts: 4, nowMs: 2000, deadlineAtMs: 1000, scale: 1 })).toBeNull();
    expect(nextAttemptAt({ failedAttempts: 4, nowMs: 999, deadlineAtMs: 1000, scale: 1 })).toBe(1000);
  });
});
