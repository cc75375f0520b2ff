import { z } from 'zod';
import { CLICK_WINDOWS, VIEW_WINDOWS } from '../domain/standard-events.js';
import { ApiError } from '../errors/api-error.js';
import { parseOrThrow } from '../errors/zod-issues.js';
import { bucketsOf, type Bucket } from '../insights/buckets.js';
import type { Attribution } from '../insights/request.js';
import type { ResolvedRange } from '../insights/time-range.js';
import { resolveConversionRange, TimeRangesParam } from './time-range.js';

/**
 * The body of POST /conversions/insights -> one canonical form with every
 * default explicit (spec: Conversion insights, request body). Rules that need
 * only the body are decided here, each a 400 whose `param` names the field;
 * rules that need the account's data (entity ids, event names) are in
 * validate.ts.
 */
export const CONVERSION_LEVELS = ['campaign', 'ad_group', 'ad'] as const;
export type ConversionLevel = (typeof CONVERSION_LEVELS)[number];
export const BREAKDOWNS = ['country', 'device'] as const;
export type Breakdown = (typeof BREAKDOWNS)[number];

/** Limits (spec: Limits, Ads endpoints). */
export const MAX_EVENT_NAMES = 500;
export const MAX_EVENT_NAME_LENGTH = 256;
/** Our bound on `entity_ids` (the spec names none): far above what fits in 2000 summary rows per entity. */
export const MAX_ENTITY_IDS = 10_000;

const literals = <T extends number>(values: readonly T[]) => z.union(values.map((v) => z.literal(v)) as unknown as [z.ZodLiteral<T>, z.ZodLiteral<T>]);

const Body = z
  .object({
    aggregation_level: z.enum(CONVERSION_LEVELS),
    time_ranges: TimeRangesParam,
    time_granularity: z.enum(['none', 'daily']).default('none'),
    entity_ids: z.array(z.string().min(1).max(128)).min(1).max(MAX_ENTITY_IDS).optional(),
    group_by_entity: z.boolean().default(true),
    breakdown: z.enum(BREAKDOWNS).nullish(),
    attribution_time_basis: z.enum(['ad_event_time', 'conversion_time']).default('ad_event_time'),
    // Omitted or null: the defaults (30-day click, 1-day view).
    attribution_window_days: literals(CLICK_WINDOWS).nullish(),
    view_through_attribution_window_days: literals(VIEW_WINDOWS).nullish(),
    include: z.array(z.enum(['attributed_events'])).max(10).optional(),
    event_names: z
      .array(
        z
          .string()
          .min(1)
          .max(MAX_EVENT_NAME_LENGTH)
          .regex(/\S/, 'must contain a non-whitespace character'),
      )
      .min(1)
      .max(MAX_EVENT_NAMES)
      .optional(),
    include_zero_rows: z.boolean().default(true),
  })
  .strict();

export interface ConversionRequest {
  accountId: string;
  level: ConversionLevel;
  range: ResolvedRange;
  granularity: 'none' | 'daily';
  /** Report buckets: one for `none`, else local days of the account timezone. */
  buckets: Bucket[];
  /** Requested entities (deduplicated, in order), or null: the whole account. */
  entityIds: string[] | null;
  groupByEntity: boolean;
  breakdown: Breakdown | null;
  attribution: Attribution;
  /** `include` has `attributed_events`. */
  expandEvents: boolean;
  /** Selected event names (deduplicated, exact), or null: all events. */
  eventNames: string[] | null;
  includeZeroRows: boolean;
  /** The lists as sent (before deduplication), so an error can name the entry's index. */
  sent: { entityIds: readonly string[]; eventNames: readonly string[] };
}

const bad = (param: string, message: string) => new ApiError('invalid_value', message, { param });
const unique = (xs: readonly string[]): string[] => [...new Set(xs)];

export function normalizeConversionInsights(account: { id: string; timezone: string }, rawBody: unknown, nowMs: number): ConversionRequest {
  const b = parseOrThrow(Body, rawBody ?? {});
  const expandEvents = (b.include ?? []).includes('attributed_events');
  if (b.event_names !== undefined && !expandEvents) {
    throw bad('event_names', 'event_names filters the event details; it needs include to contain "attributed_events".');
  }
  if (b.group_by_entity && b.entity_ids === undefined) {
    throw new ApiError('missing_required_parameter', 'entity_ids is required when group_by_entity is true (omit it only with group_by_entity false, to report across the account).', {
      param: 'entity_ids',
    });
  }
  const [input] = b.time_ranges;
  if (input === undefined) throw new ApiError('missing_required_parameter', 'Missing required parameter: time_ranges.', { param: 'time_ranges' });
  const range = resolveConversionRange(input, account.timezone, nowMs);
  return {
    accountId: account.id,
    level: b.aggregation_level,
    range,
    granularity: b.time_granularity,
    buckets: bucketsOf(range, b.time_granularity),
    entityIds: b.entity_ids === undefined ? null : unique(b.entity_ids),
    groupByEntity: b.group_by_entity,
    breakdown: b.breakdown ?? null,
    attribution: {
      clickDays: b.attribution_window_days ?? 30,
      viewDays: b.view_through_attribution_window_days ?? 1,
      basis: b.attribution_time_basis,
    },
    expandEvents,
    eventNames: b.event_names === undefined ? null : unique(b.event_names),
    includeZeroRows: b.include_zero_rows,
    sent: { entityIds: b.entity_ids ?? [], eventNames: b.event_names ?? [] },
  };
}
