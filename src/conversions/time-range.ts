import { z } from 'zod';
import { checkConversionSpan, resolveTimeRange, TimeRangeInput, type ResolvedRange } from '../insights/time-range.js';

/**
 * `time_ranges` of conversion insights (spec: Conversion insights; COMPAT.md,
 * Insights details): exactly one JSON-encoded time-range object, a
 * `unix_range` whose bounds may be integers or numeric strings, or a
 * `date_range` (with an optional `timezone`). It resolves exactly as in GET
 * insights (src/insights/time-range.ts), so both endpoints cover the same
 * instants for the same object; then it must be full days of the account
 * timezone, end exclusive, at most 365 of them.
 */
const numericBounds = (v: unknown): unknown => {
  if (typeof v !== 'object' || v === null || (v as { type?: unknown }).type !== 'unix_range') return v;
  const out: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  for (const k of ['start', 'end']) {
    const b = out[k];
    if (typeof b === 'string' && /^\d{1,12}$/.test(b)) out[k] = Number(b);
  }
  return out;
};

export const ConversionTimeRange = z
  .preprocess(numericBounds, TimeRangeInput)
  .refine((r) => r.type !== 'hour_range', { message: 'Conversion insights take a unix_range or a date_range (full days).', path: ['type'] });

/** The one `time_ranges` entry: a JSON string of a time-range object. */
export const TimeRangesParam = z
  .array(z.string().max(10_000))
  .min(1, 'takes exactly one time-range object')
  .max(1, 'takes exactly one time-range object')
  .transform((items, ctx) =>
    items.map((text, i) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', path: [i], message: 'is not valid JSON (each time_ranges entry is a JSON-encoded object).' });
        return z.NEVER;
      }
    }),
  )
  .pipe(z.array(ConversionTimeRange));

export function resolveConversionRange(input: z.output<typeof ConversionTimeRange>, accountTimezone: string, nowMs: number): ResolvedRange {
  const range = resolveTimeRange(input, accountTimezone, nowMs);
  checkConversionSpan(range, accountTimezone);
  return range;
}
