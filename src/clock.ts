/**
 * Domain code never calls Date.now(): it takes a Clock, so tests can move time
 * (midnights, DST, long retry schedules) without sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
}

export const systemClock: Clock = Object.freeze({ nowMs: () => Date.now() });

/** A clock that only moves when told to; for tests and simulations. */
export class ManualClock implements Clock {
  constructor(private current: number) {}
  nowMs(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export const toUnixSeconds = (ms: number): number => Math.floor(ms / 1000);
