import { growthCap, growthSpanMinutes, minuteOf, windowStart, windowWait } from './limit-rules.js';
import type { LimitCheck, LimitDecision, RateLimitBackend, WindowState } from './rate-limit-types.js';

/**
 * The limiter with its counts in this process's memory. It is the reference
 * the property tests drive with a fake clock, and the fallback a process
 * uses while Redis cannot be reached (each process then keeps its own
 * budget). Idle keys are swept so a flood of client addresses cannot grow it
 * without bound.
 */
export class MemoryBackend implements RateLimitBackend {
  private readonly windows = new Map<string, number[]>();
  private readonly growth = new Map<string, Map<number, number>>();
  private checks = 0;

  constructor(private readonly sweepEvery = 1000) {}

  async check(check: LimitCheck): Promise<LimitDecision> {
    return this.decide(check);
  }

  /** Synchronous for the property tests. */
  decide(check: LimitCheck): LimitDecision {
    const { nowMs, windowMs } = check;
    if (++this.checks % this.sweepEvery === 0) this.sweep(nowMs, windowMs);
    const logs = check.rules.map((r) => this.pruned(r.key, nowMs, windowMs));
    let wait = 0;
    check.rules.forEach((r, i) => (wait = Math.max(wait, windowWait(logs[i] as number[], nowMs, windowMs, r.limit))));
    const states = (admitted: boolean): WindowState[] =>
      check.rules.map((r, i) => {
        const log = logs[i] as number[];
        return { limit: r.limit, count: log.length, oldestMs: log[0] ?? (admitted ? nowMs : null) };
      });
    if (wait > 0) return { verdict: 'rate_limit_exceeded', retryAfterMs: wait, windows: states(false) };

    if (check.growth !== null) {
      const minute = minuteOf(nowMs);
      const counts = this.growth.get(check.growth.key) ?? new Map<number, number>();
      const cap = growthCap((m) => counts.get(m) ?? 0, minute, check.growth);
      const slowWait = windowWait(logs[check.growth.rateRule] ?? [], nowMs, windowMs, cap);
      if (slowWait > 0) return { verdict: 'slow_down', retryAfterMs: slowWait, windows: states(false) };
      counts.set(minute, (counts.get(minute) ?? 0) + 1);
      for (const m of counts.keys()) if (m <= minute - growthSpanMinutes(check.growth)) counts.delete(m);
      this.growth.set(check.growth.key, counts);
    }
    for (const log of logs) log.push(nowMs);
    check.rules.forEach((r, i) => this.windows.set(r.key, logs[i] as number[]));
    return { verdict: 'allowed', retryAfterMs: 0, windows: states(true) };
  }

  async close(): Promise<void> {
    this.windows.clear();
    this.growth.clear();
  }

  private pruned(key: string, nowMs: number, windowMs: number): number[] {
    const log = this.windows.get(key) ?? [];
    const start = windowStart(nowMs, windowMs);
    let drop = 0;
    while (drop < log.length && (log[drop] as number) <= start) drop++;
    return drop === 0 ? log : log.slice(drop);
  }

  private sweep(nowMs: number, windowMs: number): void {
    const start = windowStart(nowMs, windowMs);
    for (const [key, log] of this.windows) if ((log[log.length - 1] ?? -Infinity) <= start) this.windows.delete(key);
    // Counts older than twice the longest growth window the config allows (1,440 minutes) no longer matter.
    const minute = minuteOf(nowMs);
    for (const [key, counts] of this.growth) if (Math.max(...counts.keys()) < minute - 2 * 1440) this.growth.delete(key);
  }
}
