/**
 * The shapes shared by the pure limiter, its in-memory backend and its Redis
 * backend. One check names every window it must pass and, for an
 * authenticated account, the growth rule; the backend decides all of them at
 * once, so a refused request never consumes any budget and an admitted one
 * consumes all of it.
 */

/** A sliding window: at most `limit` admitted requests in any `windowMs` span. */
export interface WindowRule {
  readonly key: string;
  readonly limit: number;
}

/**
 * The growth rule (spec: Limits, "Traffic growth rule"): above `threshold`
 * requests a minute, the requests of the last minute (a sliding window, so a
 * minute edge cannot be used to double them) may be at most `growthPercent`%
 * more than the busiest calendar minute of the `windowMinutes` minutes that
 * ended `windowMinutes` minutes earlier.
 */
export interface GrowthRule {
  /** Where the admitted requests per calendar minute are counted (the history). */
  readonly key: string;
  /** Index in the check's rules of the window whose count is the current rate (the overall one). */
  readonly rateRule: number;
  readonly threshold: number;
  readonly growthPercent: number;
  readonly windowMinutes: number;
}

export interface LimitCheck {
  readonly nowMs: number;
  readonly windowMs: number;
  readonly rules: readonly WindowRule[];
  readonly growth: GrowthRule | null;
  /** Unique per request, so two requests in one millisecond are two entries. */
  readonly member: string;
}

export type Verdict = 'allowed' | 'rate_limit_exceeded' | 'slow_down';

/** One window after the decision: `count` includes this request when it was admitted. */
export interface WindowState {
  readonly limit: number;
  readonly count: number;
  /** The oldest request still counted, or null for an empty window. */
  readonly oldestMs: number | null;
}

export interface LimitDecision {
  readonly verdict: Verdict;
  /** For a refusal: how long until the same request would be admitted (0 when allowed). */
  readonly retryAfterMs: number;
  /** One per rule of the check, in its order. */
  readonly windows: readonly WindowState[];
}

/** Where the limiter keeps its counts: Redis (shared by processes) or memory (one process). */
export interface RateLimitBackend {
  check(check: LimitCheck): Promise<LimitDecision>;
  close(): Promise<void>;
}

export const MINUTE_MS = 60_000;
