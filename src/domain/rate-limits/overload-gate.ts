/**
 * When a process sheds load (spec: Errors, 503 `server_is_overloaded`):
 * sampled signals (event loop delay, heap) shed once they are over their
 * limit in `sustain` samples in a row (one slow sample, such as the JIT
 * warming up on a process's first requests, is not saturation; seen in the
 * bench), and stop with the first sample under it, so a process recovers by
 * itself one sample after the pressure ends; queries in
 * flight are read on every request, so shedding stops as soon as the queue
 * drains. A limit of 0 turns its signal off.
 */
export interface OverloadLimits {
  readonly maxEventLoopDelayMs: number;
  readonly maxHeapPercent: number;
  readonly maxQueriesInFlight: number;
}

export interface LoadSample {
  readonly eventLoopDelayMs: number;
  readonly heapPercent: number;
}

export type OverloadReason = 'event_loop_delay' | 'heap' | 'queries_in_flight';

export class OverloadGate {
  private sampled: OverloadReason | null = null;
  private over = 0;

  constructor(
    private readonly limits: OverloadLimits,
    private readonly sustain = 2,
  ) {}

  record(sample: LoadSample): void {
    const { maxEventLoopDelayMs, maxHeapPercent } = this.limits;
    let reason: OverloadReason | null = null;
    if (maxEventLoopDelayMs > 0 && sample.eventLoopDelayMs > maxEventLoopDelayMs) reason = 'event_loop_delay';
    else if (maxHeapPercent > 0 && sample.heapPercent > maxHeapPercent) reason = 'heap';
    this.over = reason === null ? 0 : this.over + 1;
    this.sampled = this.over >= this.sustain ? reason : null;
  }

  verdict(queriesInFlight: number): OverloadReason | null {
    if (this.sampled !== null) return this.sampled;
    const max = this.limits.maxQueriesInFlight;
    return max > 0 && queriesInFlight >= max ? 'queries_in_flight' : null;
  }

  /** Whether any signal is on; with none, nothing needs sampling. */
  get enabled(): boolean {
    const l = this.limits;
    return l.maxEventLoopDelayMs > 0 || l.maxHeapPercent > 0 || l.maxQueriesInFlight > 0;
  }

  get samples(): boolean {
    return this.limits.maxEventLoopDelayMs > 0 || this.limits.maxHeapPercent > 0;
  }
}
