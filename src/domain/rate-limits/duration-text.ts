/**
 * Durations as the `x-ratelimit-reset-requests` header writes them (spec:
 * Limits, "Rate-limit response headers": duration text such as `1s`, `6m0s`,
 * `12ms`): below a second in whole milliseconds, below a minute in seconds
 * (fractions kept to the millisecond, e.g. `1.5s`), and from a minute up as
 * `<m>m<s>s` (hours as `<h>h<m>m<s>s`).
 */
export function durationText(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  if (whole < 1000) return `${whole}ms`;
  if (whole < 60_000) return `${trimSeconds(whole / 1000)}s`;
  const totalSeconds = Math.ceil(whole / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  return h > 0 ? `${h}h${m}m${s}s` : `${m}m${s}s`;
}

const trimSeconds = (s: number): string => String(Number(s.toFixed(3)));

/** `Retry-After` is whole seconds, at least 1 (spec: Limits, Retry-After is a minimum wait). */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
