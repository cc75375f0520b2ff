import type { Clock } from '../../clock.js';
import type { LogSink } from '../../logger.js';
import { tightestWindow } from './limit-rules.js';
import { MemoryBackend } from './memory-backend.js';
import { MINUTE_MS, type LimitDecision, type RateLimitBackend, type Verdict, type WindowRule } from './rate-limit-types.js';

/** The limits in force (config.ts reads them; COMPAT.md, Transport: 600 per endpoint, 1,200 overall, a minute). */
export interface RateLimitSettings {
  readonly perEndpoint: number;
  readonly overall: number;
  /** Key prefix in Redis: processes that share it share one budget. */
  readonly prefix: string;
  readonly growth: { readonly threshold: number; readonly percent: number; readonly windowMinutes: number };
}

/** What a check tells the HTTP layer. */
export interface RateLimitOutcome {
  readonly verdict: Verdict;
  readonly retryAfterMs: number;
  /** The window closest to its limit, for the `x-ratelimit-*-requests` headers. */
  readonly tightest: { limit: number; remaining: number; resetMs: number } | null;
}

export const RATE_WINDOW_MS = MINUTE_MS;

/**
 * Per-client-IP and per-account limits, each per endpoint (method + route
 * pattern) and overall; the growth rule applies to accounts only (spec:
 * Errors, `slow_down` is about "the request rate" of a caller with a key).
 *
 * When the shared backend fails (Redis down or slow), checks go to an
 * in-process backend with the same limits, so requests are still limited,
 * per process, instead of failing or going unlimited; one log line marks the
 * switch each way.
 */
export class RateLimiter {
  private readonly fallback = new MemoryBackend();
  private degraded = false;

  constructor(
    private readonly shared: RateLimitBackend | null,
    private readonly settings: RateLimitSettings,
    private readonly clock: Clock,
    private readonly log: LogSink,
  ) {}

  checkClient(ip: string, endpoint: string, member: string): Promise<RateLimitOutcome> {
    return this.run(`ip:${ip}`, endpoint, member, false);
  }

  checkAccount(accountId: string, endpoint: string, member: string): Promise<RateLimitOutcome> {
    return this.run(`acct:${accountId}`, endpoint, member, true);
  }

  get usingFallback(): boolean {
    return this.degraded || this.shared === null;
  }

  async close(): Promise<void> {
    await Promise.all([this.shared?.close(), this.fallback.close()]);
  }

  private async run(subject: string, endpoint: string, member: string, growth: boolean): Promise<RateLimitOutcome> {
    const { prefix, perEndpoint, overall } = this.settings;
    const rules: WindowRule[] = [
      { key: `${prefix}:w:${subject}:${endpoint}`, limit: perEndpoint },
      { key: `${prefix}:w:${subject}:*`, limit: overall },
    ];
    const g = this.settings.growth;
    const nowMs = this.clock.nowMs();
    const check = {
      nowMs,
      windowMs: RATE_WINDOW_MS,
      rules,
      // The current rate is the overall window's count (rules[1]).
      growth: growth ? { key: `${prefix}:g:${subject}`, rateRule: 1, threshold: g.threshold, growthPercent: g.percent, windowMinutes: g.windowMinutes } : null,
      member,
    };
    const decision = await this.decide(check);
    return { verdict: decision.verdict, retryAfterMs: decision.retryAfterMs, tightest: tightestWindow(decision.windows, nowMs, RATE_WINDOW_MS) };
  }

  private async decide(check: Parameters<RateLimitBackend['check']>[0]): Promise<LimitDecision> {
    if (this.shared === null) return this.fallback.check(check);
    try {
      const decision = await this.shared.check(check);
      if (this.degraded) {
        this.degraded = false;
        this.log.info({}, 'rate limiter: Redis answers again; limits are shared by all processes again');
      }
      return decision;
    } catch (err) {
      if (!this.degraded) {
        this.degraded = true;
        this.log.warn({ err }, 'rate limiter: Redis unavailable; limiting in this process only until it answers');
      }
      return this.fallback.check(check);
    }
  }
}
