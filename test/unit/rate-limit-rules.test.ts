import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { durationText, retryAfterSeconds } from '../../src/domain/rate-limits/duration-text.js';
import { tightestWindow } from '../../src/domain/rate-limits/limit-rules.js';
import { MemoryBackend } from '../../src/domain/rate-limits/memory-backend.js';
import { OverloadGate } from '../../src/domain/rate-limits/overload-gate.js';
import type { GrowthRule, LimitDecision, WindowRule } from '../../src/domain/rate-limits/rate-limit-types.js';

const W = 60_000;
const T0 = Date.UTC(2026, 10, 22, 12);

/** Drives the limiter over a trace of request times (a fake clock: each check carries its time). */
function replay(times: readonly number[], rules: (i: number) => WindowRule[], growth: GrowthRule | null = null): LimitDecision[] {
  const backend = new MemoryBackend(97);
  return times.map((nowMs, i) => backend.decide({ nowMs, windowMs: W, rules: rules(i), growth, member: `r${i}` }));
}

/** Admitted requests in (t - W, t], counted independently of the code under test. */
const inWindow = (admitted: readonly number[], t: number): number => admitted.filter((a) => a > t - W && a <= t).length;

/** Request times from random gaps: bursts (gap 0), dense and sparse stretches, crossing many window edges. */
const trace = (maxLen: number) =>
  fc
    .array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 30_000 }), fc.integer({ min: 59_000, max: 61_000 })), { minLength: 1, maxLength: maxLen })
    .map((gaps) => {
      let t = T0 + 59_000; // starts one second before a minute edge
      return gaps.map((g) => (t += g));
    });

describe('sliding window (issue 9: limits exact, no double burst at window edges)', () => {
  it('never admits more than the limit in any span of one window, and refuses only when that span is full', () => {
    fc.assert(
      fc.property(trace(400), fc.integer({ min: 1, max: 40 }), (times, limit) => {
        const decisions = replay(times, () => [{ key: 'k', limit }]);
        const admitted: number[] = [];
        decisions.forEach((d, i) => {
          const t = times[i] as number;
          if (d.verdict === 'allowed') {
            admitted.push(t);
            expect(inWindow(admitted, t)).toBeLessThanOrEqual(limit);
          } else {
            expect(d.verdict).toBe('rate_limit_exceeded');
            expect(inWindow(admitted, t)).toBe(limit);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it('Retry-After is the earliest moment the same request is admitted', () => {
    fc.assert(
      fc.property(trace(200), fc.integer({ min: 1, max: 20 }), (times, limit) => {
        const decisions = replay(times, () => [{ key: 'k', limit }]);
        const admitted: number[] = [];
        decisions.forEach((d, i) => {
          const t = times[i] as number;
          if (d.verdict === 'allowed') admitted.push(t);
          else {
            expect(inWindow(admitted, t + d.retryAfterMs)).toBeLessThan(limit);
            expect(inWindow(admitted, t + d.retryAfterMs - 1)).toBe(limit);
          }
        });
      }),
      { numRuns: 200 },
    );
  });

  it('an overloading client gets the limit per window, within 1%, over a long run', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 600 }), fc.integer({ min: 2, max: 4 }), fc.integer({ min: 0, max: 59_999 }), (limit, overload, offset) => {
        const minutes = 100;
        const gap = W / (limit * overload);
        const times = Array.from({ length: Math.floor((minutes * W) / gap) }, (_, i) => T0 + offset + Math.floor(i * gap));
        const admitted = replay(times, () => [{ key: 'k', limit }]).filter((d) => d.verdict === 'allowed').length;
        expect(Math.abs(admitted - limit * minutes) / (limit * minutes)).toBeLessThanOrEqual(0.01);
      }),
      { numRuns: 25 },
    );
  });

  it('per-endpoint and overall windows hold together; a refusal by one consumes neither', () => {
    fc.assert(
      fc.property(trace(300), fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 300, maxLength: 300 }), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 20 }), (times, endpoints, perEndpoint, overall) => {
        const decisions = replay(times, (i) => [
          { key: `e${endpoints[i]}`, limit: perEndpoint },
          { key: '*', limit: overall },
        ]);
        const all: number[] = [];
        const byEndpoint = new Map<number, number[]>();
        decisions.forEach((d, i) => {
          const t = times[i] as number;
          const e = endpoints[i] as number;
          const mine = byEndpoint.get(e) ?? [];
          if (d.verdict === 'allowed') {
            all.push(t);
            mine.push(t);
            byEndpoint.set(e, mine);
            expect(inWindow(all, t)).toBeLessThanOrEqual(overall);
            expect(inWindow(mine, t)).toBeLessThanOrEqual(perEndpoint);
          } else {
            expect(inWindow(all, t) === overall || inWindow(mine, t) === perEndpoint).toBe(true);
          }
        });
      }),
      { numRuns: 200 },
    );
  });

  it('the headers report the window closest to its limit, and when it next frees a request', () => {
    const [first] = replay([T0], () => [
      { key: 'e', limit: 600 },
      { key: '*', limit: 1200 },
    ]);
    expect(tightestWindow(first?.windows ?? [], T0, W)).toEqual({ limit: 600, remaining: 599, resetMs: W });
    expect(tightestWindow([{ limit: 600, count: 10, oldestMs: T0 }, { limit: 1200, count: 1195, oldestMs: T0 - 50_000 }], T0, W)).toEqual({ limit: 1200, remaining: 5, resetMs: 10_000 });
    expect(tightestWindow([], T0, W)).toBeNull();
  });
});

describe('growth rule (spec: Limits, traffic growth rule; Errors, slow_down)', () => {
  const unlimited = (): WindowRule[] => [{ key: 'k', limit: 1_000_000_000 }];
  const rule = (threshold: number): GrowthRule => ({ key: 'g', rateRule: 0, threshold, growthPercent: 50, windowMinutes: 15 });
  /** Requests spread evenly over each minute, `counts[m]` of them in minute m. */
  const spread = (counts: readonly number[]): number[] =>
    counts.flatMap((c, m) => Array.from({ length: c }, (_, j) => T0 + m * W + Math.floor(((j + 0.5) * W) / c)));
  /** The cap computed from the admitted requests, independently of the limiter: threshold, or 150% of the busiest minute 15..29 minutes back. */
  const capAt = (admitted: readonly number[], t: number, threshold: number): number => {
    const k = Math.floor(t / W);
    let busiest = 0;
    for (let m = k - 29; m <= k - 15; m++) busiest = Math.max(busiest, admitted.filter((a) => Math.floor(a / W) === m).length);
    return Math.max(threshold, Math.floor(busiest * 1.5));
  };

  it('never refuses traffic below its threshold (at most the threshold in any minute-long span)', () => {
    fc.assert(
      fc.property(trace(400), fc.integer({ min: 1, max: 30 }), (raw, threshold) => {
        // Keep only the requests that keep every minute-long span within the threshold.
        const times: number[] = [];
        for (const t of raw) if (inWindow(times, t) < threshold) times.push(t);
        expect(replay(times, unlimited, rule(threshold)).every((d) => d.verdict === 'allowed')).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('never refuses a steady or slowly rising rate (each minute at most 40% over the minute 15 earlier)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 30, max: 60 }), fc.array(fc.double({ min: 0.6, max: 1.4, noNaN: true }), { minLength: 16, maxLength: 75 }), (threshold, factors) => {
        const counts: number[] = [];
        factors.forEach((f, m) => {
          // Before there is history, staying under the threshold is the whole allowance.
          const earlier = m >= 15 ? (counts[m - 15] as number) : 0;
          const allowance = Math.max(threshold - 1, Math.floor(earlier * 1.4));
          counts.push(Math.min(Math.floor(Math.max(earlier, threshold - 1) * f), allowance));
        });
        expect(replay(spread(counts), unlimited, rule(threshold)).every((d) => d.verdict === 'allowed')).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('past the threshold, the last minute never holds more than 150% of the busiest minute 15 minutes earlier; refusals are exact', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer({ min: 0, max: 80 }), { minLength: 1, maxLength: 60 }), (threshold, counts) => {
        const times = spread(counts);
        const admitted: number[] = [];
        replay(times, unlimited, rule(threshold)).forEach((d, i) => {
          const t = times[i] as number;
          const cap = capAt(admitted, t, threshold);
          if (d.verdict === 'allowed') {
            admitted.push(t);
            expect(inWindow(admitted, t)).toBeLessThanOrEqual(cap);
          } else {
            expect(d.verdict).toBe('slow_down');
            expect(inWindow(admitted, t)).toBeGreaterThanOrEqual(cap);
            // Retry-After: the first moment the last minute holds fewer than the cap.
            expect(inWindow(admitted, t + d.retryAfterMs)).toBeLessThan(cap);
            expect(inWindow(admitted, t + d.retryAfterMs - 1)).toBeGreaterThanOrEqual(cap);
          }
        });
      }),
      { numRuns: 150 },
    );
  });

  it('a jump from silence to three times the threshold is slowed to the threshold', () => {
    const decisions = replay(spread([...Array(30).fill(0), 90]), unlimited, rule(30));
    expect(decisions.filter((d) => d.verdict === 'allowed')).toHaveLength(30);
    expect(decisions.filter((d) => d.verdict === 'slow_down')).toHaveLength(60);
  });

  it('a burst across a minute edge cannot take the threshold twice', () => {
    const edge = T0 + 60 * W;
    const times = [...Array.from({ length: 30 }, (_, i) => edge - 1000 + i), ...Array.from({ length: 30 }, (_, i) => edge + i)];
    expect(replay(times, unlimited, rule(30)).filter((d) => d.verdict === 'allowed')).toHaveLength(30);
  });
});

describe('duration text and Retry-After (spec: Limits, rate-limit response headers)', () => {
  it('writes durations like 12ms, 1s, 6m0s', () => {
    expect(durationText(12)).toBe('12ms');
    expect(durationText(0)).toBe('0ms');
    expect(durationText(1000)).toBe('1s');
    expect(durationText(1500)).toBe('1.5s');
    expect(durationText(59_999)).toBe('59.999s');
    expect(durationText(60_000)).toBe('1m0s');
    expect(durationText(360_000)).toBe('6m0s');
    expect(durationText(61_200)).toBe('1m2s');
    expect(durationText(3_723_000)).toBe('1h2m3s');
  });

  it('Retry-After is whole seconds and at least 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (ms) => {
        const s = retryAfterSeconds(ms);
        expect(Number.isInteger(s)).toBe(true);
        expect(s).toBeGreaterThanOrEqual(1);
        expect(s * 1000).toBeGreaterThanOrEqual(ms);
      }),
    );
  });
});

describe('overload gate (spec: Errors, 503 server_is_overloaded)', () => {
  const limits = { maxEventLoopDelayMs: 100, maxHeapPercent: 90, maxQueriesInFlight: 8 };

  it('sheds on a slow event loop or a full heap two samples in a row, or too many queries, and recovers with the next normal sample', () => {
    const gate = new OverloadGate(limits);
    expect(gate.verdict(0)).toBeNull();
    gate.record({ eventLoopDelayMs: 250, heapPercent: 10 });
    // One slow sample is a hiccup, not saturation.
    expect(gate.verdict(0)).toBeNull();
    gate.record({ eventLoopDelayMs: 5, heapPercent: 10 });
    gate.record({ eventLoopDelayMs: 250, heapPercent: 10 });
    expect(gate.verdict(0)).toBeNull();
    gate.record({ eventLoopDelayMs: 300, heapPercent: 10 });
    expect(gate.verdict(0)).toBe('event_loop_delay');
    gate.record({ eventLoopDelayMs: 5, heapPercent: 95 });
    expect(gate.verdict(0)).toBe('heap');
    gate.record({ eventLoopDelayMs: 5, heapPercent: 10 });
    expect(gate.verdict(7)).toBeNull();
    expect(gate.verdict(8)).toBe('queries_in_flight');
    expect(gate.verdict(2)).toBeNull();
  });

  it('a limit of 0 turns its signal off', () => {
    const gate = new OverloadGate({ maxEventLoopDelayMs: 0, maxHeapPercent: 0, maxQueriesInFlight: 0 });
    gate.record({ eventLoopDelayMs: 10_000, heapPercent: 100 });
    expect(gate.verdict(1_000_000)).toBeNull();
    expect(gate.enabled).toBe(false);
  });
});
