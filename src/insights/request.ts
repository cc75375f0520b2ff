import { z } from 'zod';
import { ApiError } from '../errors/api-error.js';
import { parseOrThrow } from '../errors/zod-issues.js';
import { queryArray, queryInt } from '../http/params.js';
import { GRANULARITIES, type Granularity } from './buckets.js';
import {
  DEFAULT_NAME_FIELD,
  FEED_ITEM_FILTER,
  isConversionMetric,
  LEVELS,
  levelRank,
  lookupField,
  SEGMENT_KEY_FIELDS,
  SEGMENTS,
  type FieldDef,
  type Level,
  type Segment,
} from './catalog.js';
import { checkConversionSpan, resolveTimeRange, TimeRangeInput, type ResolvedRange } from './time-range.js';

/**
 * GET insights request -> one canonical form with every default explicit
 * (spec: Insights (GET)). Everything the compiler needs is decided here; every
 * invalid combination the spec names is a 400 whose `param` names the
 * parameter.
 */
export interface InsightsScope {
  accountId: string;
  level: Level;
  /** The scope entity's id (the account id for the account endpoint). */
  id: string;
}

export interface AccountFacts {
  timezone: string;
  productSegments: boolean;
  zeroImpressionProducts: boolean;
}

export type Filter =
  | { kind: 'in'; field: FieldDef; values: string[] }
  | { kind: 'feed_items'; pairs: { feed_id: string; item_id: string }[] }
  | { kind: 'compare'; field: FieldDef; op: '>' | '<'; value: number };

export interface Sort {
  field: FieldDef;
  direction: 'asc' | 'desc';
}

export interface Attribution {
  clickDays: 7 | 14 | 30;
  viewDays: 0 | 1;
  basis: 'ad_event_time' | 'conversion_time';
}

export interface InsightsRequest {
  scope: InsightsScope;
  level: Level;
  granularity: Granularity;
  range: ResolvedRange;
  fields: FieldDef[];
  filters: Filter[];
  sort: Sort[];
  segment: Segment | null;
  /** Row order of the grouping: entity first (default) or segment first. */
  segmentFirst: boolean;
  include: 'zero_impression_items' | 'zero_impression_products' | null;
  limit: number;
  cursor: { direction: 'after' | 'before'; token: string } | null;
  attribution: Attribution;
  /** Whether any conversion metric is requested, filtered or sorted on. */
  conversions: boolean;
}

const jsonItems = (param: string) =>
  queryArray(z.string().max(10_000)).transform((items, ctx) =>
    items.map((text, i) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', path: [i], message: `is not valid JSON (each ${param} entry is a JSON-encoded object).` });
        return z.NEVER;
      }
    }),
  );

const Query = z
  .object({
    aggregation_level: z.enum(LEVELS).optional(),
    time_granularity: z.enum(GRANULARITIES).default('daily'),
    time_ranges: jsonItems('time_ranges').pipe(z.array(TimeRangeInput).max(1, 'takes exactly one time-range object')).optional(),
    fields: queryArray(z.string().min(1).max(200)).pipe(z.array(z.string()).max(100)).optional(),
    filters: jsonItems('filters').pipe(z.array(z.unknown()).max(50)).optional(),
    sort: jsonItems('sort').pipe(z.array(z.unknown()).max(10)).optional(),
    segments: queryArray(z.enum(SEGMENTS)).pipe(z.array(z.enum(SEGMENTS)).max(1, 'takes at most one segment')).optional(),
    override_segment_group_order: queryArray(z.string().max(50)).optional(),
    includes: queryArray(z.enum(['zero_impression_items', 'zero_impression_products']))
      .pipe(z.array(z.enum(['zero_impression_items', 'zero_impression_products'])).max(1, 'takes at most one include'))
      .optional(),
    limit: queryInt(1, 2000).default(20),
    after: z.string().min(1).max(2000).optional(),
    before: z.string().min(1).max(2000).optional(),
    attribution_window_days: z
      .preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v), z.union([z.literal(7), z.literal(14), z.literal(30)]))
      .default(30),
    view_through_attribution_window_days: z.preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v), z.union([z.literal(0), z.literal(1)])).default(1),
    attribution_time_basis: z.enum(['ad_event_time', 'conversion_time']).default('ad_event_time'),
  })
  .strict();

const FilterInput = z
  .object({
    field: z.string().min(1).max(200),
    operator: z.enum(['IN', 'GREATER_THAN', 'LESS_THAN']),
    value: z.unknown(),
  })
  .strict();
const SortInput = z.object({ field: z.string().min(1).max(200), direction: z.enum(['asc', 'desc']).default('asc') }).strict();
const FeedItem = z.object({ feed_id: z.string().min(1).max(256), item_id: z.string().min(1).max(256) }).strict();

const bad = (param: string, message: string) => new ApiError('invalid_value', message, { param });

/** Why a field cannot appear in this row shape, or null when it can. */
function invalidFor(f: FieldDef, level: Level, segment: Segment | null, granularity: Granularity): string | null {
  if (f.segment !== undefined && f.segment !== segment) return `needs segments=${f.segment}`;
  if (f.kind === 'metric' && f.entity !== undefined && f.entity !== level) return `is for aggregation_level ${f.entity}; use ${level}.${f.metric} or ${f.metric}`;
  if ((f.kind === 'id' || f.kind === 'entity_meta') && f.entity !== undefined && levelRank(f.entity) > levelRank(level)) {
    return `is below aggregation_level ${level}`;
  }
  if (f.kind === 'metric' && segment === 'platform' && f.metric !== undefined && isConversionMetric(f.metric)) return 'is not available with the platform segment (delivery metrics only)';
  if (f.name === 'metadata.readable_time' && granularity === 'none') return 'needs a bucketed time_granularity (hourly, daily or monthly)';
  return null;
}

function resolveField(name: string, param: string, level: Level, segment: Segment | null, granularity: Granularity): FieldDef {
  if (name === FEED_ITEM_FILTER) throw bad(param, `${FEED_ITEM_FILTER} is valid only in filters.`);
  const f = lookupField(name);
  if (f === undefined) throw bad(param, `Unknown field '${name}'.`);
  const why = invalidFor(f, level, segment, granularity);
  if (why !== null) throw bad(param, `Field '${name}' ${why}.`);
  return f;
}

function parseFilter(raw: unknown, i: number, level: Level, segment: Segment | null, granularity: Granularity): Filter {
  const param = `filters[${i}]`;
  const input = parseOrThrow(FilterInput, raw, ['filters', i]);
  if (input.field === FEED_ITEM_FILTER) {
    if (segment !== 'product') throw bad(`${param}.field`, `${FEED_ITEM_FILTER} needs segments=product.`);
    if (input.operator !== 'IN') throw bad(`${param}.operator`, `${FEED_ITEM_FILTER} takes only IN.`);
    const texts = parseOrThrow(z.array(z.string()).min(1).max(1000), input.value, ['filters', i, 'value']);
    const pairs = texts.map((t, j) => {
      let obj: unknown;
      try {
        obj = JSON.parse(t);
      } catch {
        throw bad(`${param}.value[${j}]`, 'must be a JSON string of an object with feed_id and item_id.');
      }
      return parseOrThrow(FeedItem, obj, ['filters', i, 'value', j]);
    });
    return { kind: 'feed_items', pairs };
  }
  const field = resolveField(input.field, `${param}.field`, level, segment, granularity);
  if (field.kind === 'report_meta') throw bad(`${param}.field`, `Field '${input.field}' cannot be filtered on.`);
  if (input.operator === 'IN') {
    if (field.kind === 'metric') throw bad(`${param}.operator`, `Metric '${input.field}' takes GREATER_THAN or LESS_THAN.`);
    const values = parseOrThrow(z.array(z.string().max(1000)).min(1).max(1000), input.value, ['filters', i, 'value']);
    return { kind: 'in', field, values };
  }
  if (!field.numeric) throw bad(`${param}.operator`, `Field '${input.field}' is not numeric; use IN.`);
  const value = parseOrThrow(z.number().finite(), input.value, ['filters', i, 'value']);
  return { kind: 'compare', field, op: input.operator === 'GREATER_THAN' ? '>' : '<', value };
}

export function normalizeInsights(scope: InsightsScope, account: AccountFacts, rawQuery: unknown, nowMs: number): InsightsRequest {
  const q = parseOrThrow(Query, rawQuery);
  const level = q.aggregation_level ?? scope.level;
  if (levelRank(level) < levelRank(scope.level)) {
    throw bad('aggregation_level', `This endpoint reports at ${LEVELS.slice(levelRank(scope.level)).join(', ')} level; '${level}' is above it.`);
  }
  const segment = q.segments?.[0] ?? null;
  const granularity = q.time_granularity;
  if (segment === 'product' && !account.productSegments) throw bad('segments', 'The product segment is not enabled for this ad account.');
  if (segment !== null && granularity === 'hourly') throw bad('time_granularity', 'Segmented reports support none, daily and monthly granularity, not hourly.');

  let segmentFirst = false;
  if (q.override_segment_group_order !== undefined) {
    const order = q.override_segment_group_order;
    if (segment === null) throw bad('override_segment_group_order', 'needs a segment.');
    const expected = [level, segment];
    if (order.length !== 2 || !expected.every((e) => order.includes(e))) {
      throw bad('override_segment_group_order', `must list '${level}' and '${segment}', each exactly once.`);
    }
    segmentFirst = order[0] === segment;
  }

  const names = q.fields ?? [
    'impressions',
    ...(granularity === 'none' ? [] : ['metadata.readable_time']),
    DEFAULT_NAME_FIELD[level],
    ...(segment === null ? [] : SEGMENT_KEY_FIELDS[segment]),
  ];
  const fields: FieldDef[] = [];
  names.forEach((name, i) => {
    const f = resolveField(name, `fields[${i}]`, level, segment, granularity);
    if (!fields.some((g) => g.wire === f.wire)) fields.push(f);
  });
  const filters = (q.filters ?? []).map((raw, i) => parseFilter(raw, i, level, segment, granularity));
  const sort = (q.sort ?? []).map((raw, i): Sort => {
    const s = parseOrThrow(SortInput, raw, ['sort', i]);
    const field = resolveField(s.field, `sort[${i}].field`, level, segment, granularity);
    if (!field.sortable || (field.kind === 'id' && field.entity !== level)) throw bad(`sort[${i}].field`, `Field '${s.field}' cannot be sorted on.`);
    return { field, direction: s.direction };
  });

  const include = q.includes?.[0] ?? null;
  if (include === 'zero_impression_items' && segment !== null) throw bad('includes', 'zero_impression_items works only with the default entity grouping (no segments).');
  if (include === 'zero_impression_products') {
    if (!account.productSegments || !account.zeroImpressionProducts) throw bad('includes', 'zero_impression_products is not enabled for this ad account.');
    if (segment !== 'product') throw bad('includes', 'zero_impression_products needs segments=product.');
    if (!segmentFirst) throw bad('includes', 'zero_impression_products needs override_segment_group_order with product first.');
    filters.forEach((f, i) => {
      const ok = f.kind === 'feed_items' || f.field.kind === 'metric' || f.field.kind === 'id' || f.field.segment === 'product';
      if (!ok) throw bad(`filters[${i}].field`, 'With zero_impression_products, filters may use only product fields, entity ids or metrics.');
    });
  }
  if (q.after !== undefined && q.before !== undefined) throw bad('before', 'Send only one cursor at a time (after or before).');
  const cursor = q.after !== undefined ? { direction: 'after' as const, token: q.after } : q.before !== undefined ? { direction: 'before' as const, token: q.before } : null;

  const range = resolveTimeRange(q.time_ranges?.[0], account.timezone, nowMs);
  const usesConversions = [...fields, ...sort.map((s) => s.field), ...filters.flatMap((f) => (f.kind === 'feed_items' ? [] : [f.field]))].some(
    (f) => f.metric !== undefined && isConversionMetric(f.metric),
  );
  if (usesConversions) checkConversionSpan(range, account.timezone);

  return {
    scope,
    level,
    granularity,
    range,
    fields,
    filters,
    sort,
    segment,
    segmentFirst,
    include,
    limit: q.limit,
    cursor,
    attribution: { clickDays: q.attribution_window_days, viewDays: q.view_through_attribution_window_days, basis: q.attribution_time_basis },
    conversions: usesConversions,
  };
}
