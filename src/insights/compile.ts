import type { DuckDBValue } from '@duckdb/node-api';
import { sqlList } from '../store/store.js';
import { bucketsOf, type Bucket } from './buckets.js';
import { coverBuckets, GRAIN_TABLE, GRAINS, type Cover, type Grain } from './calendar.js';
import { LEVELS, levelRank, type Level, type Metric, type Segment } from './catalog.js';
import { goalEventsSql } from './goals.js';
import type { Filter, InsightsRequest } from './request.js';

/**
 * Normalized request -> SQL text and bound parameters. Invariants (DESIGN.md,
 * Insights): identifiers come only from the catalog and the constants below;
 * values enter only through `Params.add`; the account and scope predicate is
 * written by `scopePredicate` alone, for every source table.
 *
 * Shape of the query:
 *   dlv  delivery from the rollups: calendar months and days that fit a bucket,
 *        quarter-hours for the rest, each unit mapped to its local bucket
 *   cnv  goal conversions and sales from attributions (only when asked for)
 *   grp  both joined per (bucket, entity, segment value)
 *   met  metrics and metadata per row; metric and metadata filters
 *   keyed rows in a total order (sort keys, then bucket, entity, segment)
 */
export class Params {
  readonly values: Record<string, DuckDBValue> = {};
  private n = 0;
  add(value: DuckDBValue): string {
    const name = `p${++this.n}`;
    this.values[name] = value;
    return `$${name}`;
  }
  /**
   * A list of integers (quarter-hours, instants, bucket numbers) as one bound
   * value: their decimal text, split and cast back in SQL. Binding a DuckDB
   * list value costs about 2.5 us an element; one string costs what any value
   * does. The bench's 7-day hourly report in Asia/Kolkata maps 672
   * quarter-hours to buckets: p50 13.1 ms with lists, 11.8 ms with strings.
   */
  addIntegers(values: readonly number[], type: 'BIGINT' | 'INTEGER'): string {
    if (values.length === 0) return `[]::${type}[]`;
    for (const v of values) if (!Number.isSafeInteger(v)) throw new Error(`not an integer: ${v}`);
    return `string_split(${this.add(values.join(','))}, ',')::${type}[]`;
  }
}

export interface CompiledQuery {
  sql: string;
  params: Record<string, DuckDBValue>;
  buckets: Bucket[];
  /** Sort keys of a row, in order: `k0`, `k1`, ... (null-flag and value per user sort, then the tie-breakers). */
  keyColumns: string[];
  keyDirections: ('asc' | 'desc')[];
}

const ENTITY_COLUMN: Record<Level, string> = { ad_account: 'ad_account_id', campaign: 'campaign_id', ad_group: 'ad_group_id', ad: 'ad_id' };
/** Id columns of the row: the level's and its ancestors'. */
const idColumns = (level: Level): string[] => LEVELS.slice(0, levelRank(level) + 1).map((l) => ENTITY_COLUMN[l]);
const segColumns = (segment: Segment | null): string[] => (segment === null ? [] : segment === 'product' ? ['seg_feed', 'seg_item'] : ['seg_value']);
const WEB_PLATFORMS = ['web', 'android_web', 'desktop_web', 'ios_web'];

/** The one place the account and the endpoint's entity restrict a source table. */
function scopePredicate(req: InsightsRequest, alias: string, p: Params): string {
  const parts = [`${alias}.ad_account_id = ${p.add(req.scope.accountId)}`];
  if (req.scope.level !== 'ad_account') parts.push(`${alias}.${ENTITY_COLUMN[req.scope.level]} = ${p.add(req.scope.id)}`);
  return parts.join(' AND ');
}

/** Filters that restrict source rows (ids and segment values); the rest apply to finished rows. */
function rowFilter(f: Filter, alias: string, segCol: (c: 'value' | 'feed' | 'item') => string, p: Params): string | null {
  if (f.kind === 'feed_items') {
    return `list_contains(${p.add(sqlList(f.pairs.map((x) => `${x.feed_id}\u0000${x.item_id}`)))}, ${segCol('feed')} || chr(0) || ${segCol('item')})`;
  }
  if (f.kind !== 'in' || !isSourceFilter(f)) return null;
  if (f.field.kind === 'id' && f.field.entity !== undefined) return `list_contains(${p.add(sqlList(f.values))}, ${alias}.${ENTITY_COLUMN[f.field.entity]})`;
  switch (f.field.name) {
    case 'country.code':
    case 'device.type':
      return `list_contains(${p.add(sqlList(f.values))}, ${segCol('value')})`;
    case 'platform': {
      // `web` stands for every web platform; specific web values leave historical `web` rows out.
      const values = f.values.flatMap((v) => (v === 'web' ? WEB_PLATFORMS : [v]));
      return `list_contains(${p.add(sqlList([...new Set(values)]))}, ${segCol('value')})`;
    }
    case 'product.feed_id':
      return `list_contains(${p.add(sqlList(f.values))}, ${segCol('feed')})`;
    case 'product.item_id':
      return `list_contains(${p.add(sqlList(f.values))}, ${segCol('item')})`;
    default:
      return null;
  }
}

/** Filters `rowFilter` applies to source rows (the others apply to finished rows). */
const isSourceFilter = (f: Filter): boolean =>
  f.kind === 'feed_items' || (f.kind === 'in' && (f.field.kind === 'id' || ['country.code', 'device.type', 'platform', 'product.feed_id', 'product.item_id'].includes(f.field.name)));

const ENTITY_TABLE: Record<Level, string> = { ad_account: 'ad_accounts', campaign: 'campaigns', ad_group: 'ad_groups', ad: 'ads' };

/**
 * Places event-sized rows (attributions) in local buckets without a timezone
 * function: a range join of the row's UTC time (`tsExpr`, microseconds) with
 * the request's buckets as UTC intervals (column `bk.b`). A map of every
 * quarter-hour to its bucket did the same, but binding and joining its
 * 2,880 pairs for 30 days cost 20 ms of a 30-day conversions report.
 */
function timeBucketJoin(buckets: readonly Bucket[], req: InsightsRequest, p: Params, tsExpr: string): { join: string; bucket: string } {
  if (req.granularity === 'none') return { join: '', bucket: '0' };
  const us = (s: number) => s * 1_000_000;
  return {
    join: `JOIN (SELECT unnest(${p.addIntegers(buckets.map((b) => us(b.startS)), 'BIGINT')}) AS lo, unnest(${p.addIntegers(buckets.map((b) => us(b.endS)), 'BIGINT')}) AS hi,
        unnest(range(${p.add(buckets.length)}))::INTEGER AS b) bk ON ${tsExpr} >= bk.lo AND ${tsExpr} < bk.hi`,
    bucket: 'bk.b',
  };
}

const METRIC_SQL: Record<Metric, string> = {
  impressions: 'g.imp',
  clicks: 'g.clk',
  spend: 'g.spend / 1000000.0',
  ctr: 'CASE WHEN g.imp > 0 THEN g.clk / g.imp END',
  cpc: 'CASE WHEN g.clk > 0 THEN g.spend / 1000000.0 / g.clk END',
  cpm: 'CASE WHEN g.imp > 0 THEN g.spend / 1000000.0 * 1000 / g.imp END',
  conversions: 'g.conv_click + g.conv_view',
  click_through_conversions: 'g.conv_click',
  view_through_conversions: 'g.conv_view',
  cpa: 'CASE WHEN g.conv_click + g.conv_view > 0 THEN g.spend / 1000000.0 / (g.conv_click + g.conv_view) END',
  post_click_cvr: 'CASE WHEN g.clk > 0 THEN g.conv_click / g.clk END',
  order_created_attributed_sales: 'g.sales::DOUBLE',
  order_created_roas: 'CASE WHEN g.spend > 0 THEN g.sales::DOUBLE / (g.spend / 1000000.0) END',
};

/** Metadata columns by catalog column name: expression over the joined entity tables. */
const META_SQL: Record<string, string> = {
  acct_name: 'acct.name',
  acct_url: 'acct.url',
  acct_budget_lifetime: '(SELECT w.amount_micros / 1000000.0 FROM spend_limit_windows w WHERE w.ad_account_id = acct.id AND NOT w.deleted AND w.start_date <= $today AND w.end_date >= $today LIMIT 1)',
  acct_budget_daily: '(SELECT d.amount_micros / 1000000.0 FROM daily_spend_limits d WHERE d.ad_account_id = acct.id AND NOT d.removed AND d.start_date <= $today AND (d.end_date IS NULL OR d.end_date >= $today) LIMIT 1)',
  cmpn_name: 'cmpn.name',
  cmpn_description: 'cmpn.description',
  cmpn_status: 'cmpn.status',
  cmpn_start_time: 'cmpn.start_time',
  cmpn_end_time: 'cmpn.end_time',
  cmpn_budget_lifetime: 'cmpn.lifetime_spend_limit_micros / 1000000.0',
  cmpn_budget_daily: 'NULL::DOUBLE',
  adgrp_name: 'adgrp.name',
  adgrp_description: 'adgrp.description',
  adgrp_status: 'adgrp.status',
  ad_title: 'ad.title',
  ad_copy: 'ad.body',
  ad_link: 'ad.target_url',
  ad_name: 'ad.name',
  ad_status: 'ad.status',
  ad_review_status: 'ad.review_status',
  prod_title: 'prod.title',
  prod_description: 'prod.description',
  prod_body: 'prod.body',
  prod_target_url: 'prod.target_url',
  prod_image_url: 'prod.image_url',
  prod_brand: 'prod.brand',
  prod_seller_name: 'prod.seller_name',
  prod_availability: 'prod.availability',
  prod_price: 'TRY_CAST(prod.price AS DOUBLE)',
  country_name: 'cn.name',
};


/** The longest unit of a grain, in quarter-hours (a 31-day month or a 25-hour day with a DST hour). */
const MAX_UNIT_QUARTERS: Record<Grain, number> = { month: 31 * 96 + 4, day: 100, quarter: 1 };

/**
 * A grain's units split into runs of adjacent ones with the same sign (a
 * gap: units of other grains lie between). A year by country, say, reads
 * whole months and the days at both ends; one bucket range over those days
 * would span the year.
 */
export function unitRuns(units: Cover[Grain], grain: Grain): Cover[Grain][] {
  const runs: Cover[Grain][] = [];
  units.firstQuarter.forEach((q, i) => {
    const sign = units.sign[i] as number;
    const last = runs[runs.length - 1];
    const prev = last?.firstQuarter[last.firstQuarter.length - 1];
    const joins = last !== undefined && prev !== undefined && q - prev <= MAX_UNIT_QUARTERS[grain] && last.sign[0] === sign;
    const run = joins ? last : { firstQuarter: [], bucketIndex: [], sign: [] };
    if (run !== last) runs.push(run);
    run.firstQuarter.push(q);
    run.bucketIndex.push(units.bucketIndex[i] as number);
    run.sign.push(sign);
  });
  return runs;
}

export interface CompileContext {
  /** Local date (YYYY-MM-DD, account timezone) for "current" budgets. */
  today: string;
  /** Country code -> name, for `country.name`. */
  countries: readonly { code: string; name: string }[];
  /** Data watermark the query reads as of (rollup load sequence). */
  watermark: number;
  /** Zone of the account's calendar rollups (rollup_calendars), or null when it has none yet. */
  calendarZone: string | null;
}

export function compileInsights(req: InsightsRequest, ctx: CompileContext): CompiledQuery {
  const p = new Params();
  const buckets = bucketsOf(req.range, req.granularity);
  const ids = idColumns(req.level);
  const segs = segColumns(req.segment);
  const keyCols = ['b', ...ids, ...segs];
  // Sums are grouped by the row's own entity only; its ancestors (functions of it) are joined on afterwards, from the small entity table.
  const ent = ENTITY_COLUMN[req.level];
  const sumKeys = ['b', ent, ...segs];
  const wm = p.add(ctx.watermark);

  // Delivery: each bucket covered by calendar months and days where they fit, quarter-hours elsewhere.
  const cover = coverBuckets(buckets, req.granularity, ctx.calendarZone);
  const dSeg = req.segment === null ? [] : req.segment === 'product' ? ['r.feed_value AS seg_feed', 'r.item_value AS seg_item'] : ['r.segment_value AS seg_value'];
  const dSegCol = (c: 'value' | 'feed' | 'item') => (c === 'value' ? 'r.segment_value' : c === 'feed' ? 'r.feed_value' : 'r.item_value');
  const parts = GRAINS.flatMap((grain) =>
    unitRuns(cover[grain], grain).map((units) => {
      const where = [
        scopePredicate(req, 'r', p),
        `r.segment = ${p.add(req.segment ?? 'none')}`,
        // A run's units are adjacent and in time order: its bucket range holds nothing else, so the scan skips the rest by min/max.
        `r.bucket >= ${p.add(units.firstQuarter[0] ?? 0)} AND r.bucket <= ${p.add(units.firstQuarter[units.firstQuarter.length - 1] ?? 0)}`,
        `r.load_seq <= ${wm}`,
        ...req.filters.map((f) => rowFilter(f, 'r', dSegCol, p)).filter((s): s is string => s !== null),
      ];
      // Days taken away from a month read whole (calendar.ts) count negatively.
      const sums = units.sign[0] === -1 ? '-r.impressions AS impressions, -r.clicks AS clicks, -r.spend_micros AS spend_micros' : 'r.impressions, r.clicks, r.spend_micros';
      return `SELECT um.b, r.${ent}${dSeg.map((x) => `, ${x}`).join('')}, ${sums}
      FROM ${GRAIN_TABLE[grain]} r JOIN (SELECT unnest(${p.addIntegers(units.firstQuarter, 'BIGINT')}) AS q, unnest(${p.addIntegers(units.bucketIndex, 'INTEGER')}) AS b) um ON um.q = r.bucket
      WHERE ${where.join('\n        AND ')}`;
    }),
  );
  const dlv = `SELECT b, ${[ent, ...segs].join(', ')}, sum(impressions) AS imp, sum(clicks) AS clk, sum(spend_micros) AS spend
    FROM (
      ${parts.join('\n      UNION ALL\n      ')}
    ) u
    GROUP BY ALL${
      // Every rollup row counts an impression or a click, so all-zero sums are rows whose days were all taken away.
      GRAINS.some((g) => cover[g].sign.includes(-1)) ? '\n    HAVING sum(impressions) <> 0 OR sum(clicks) <> 0 OR sum(spend_micros) <> 0' : ''
    }`;

  // Conversions (attributed to the touch's ad; placed by the chosen time basis).
  let cnv: string | null = null;
  if (req.conversions) {
    const ts = req.attribution.basis === 'ad_event_time' ? 'a.touch_ts_us' : 'a.conversion_ts_us';
    const cJoin = timeBucketJoin(buckets, req, p, ts);
    const cSeg =
      req.segment === null ? [] : req.segment === 'product' ? ['a.product_feed_id AS seg_feed', 'a.product_item_id AS seg_item'] : [`a.${req.segment} AS seg_value`];
    const cSegCol = (c: 'value' | 'feed' | 'item') => (c === 'value' ? `a.${req.segment ?? 'country'}` : c === 'feed' ? 'a.product_feed_id' : 'a.product_item_id');
    const cWhere = [
      scopePredicate(req, 'a', p),
      `a.click_window = ${p.add(req.attribution.clickDays)} AND a.view_window = ${p.add(req.attribution.viewDays)}`,
      `${ts} >= ${p.add(req.range.startS * 1_000_000)} AND ${ts} < ${p.add(req.range.endS * 1_000_000)}`,
      `a.valid_from <= ${wm} AND (a.valid_to IS NULL OR a.valid_to > ${wm})`,
      ...req.filters.map((f) => rowFilter(f, 'a', cSegCol, p)).filter((s): s is string => s !== null),
    ];
    cnv = `SELECT ${cJoin.bucket} AS b, a.${ent}${cSeg.map((s) => `, ${s}`).join('')},
      count(*) FILTER (WHERE a.kind = 'click' AND goal.campaign_id IS NOT NULL) AS conv_click,
      count(*) FILTER (WHERE a.kind = 'view' AND goal.campaign_id IS NOT NULL) AS conv_view,
      sum(a.value) FILTER (WHERE a.event_name = 'order_created') AS sales
    FROM attributions a ${cJoin.join}
    LEFT JOIN (
      -- Goal conversions: the event matches one of the attributed campaign's conversion event settings.
      ${goalEventsSql(p.add(req.scope.accountId))}
    ) goal ON goal.campaign_id = a.campaign_id AND goal.event_name = a.event_name
    WHERE ${cWhere.join('\n      AND ')}
    GROUP BY ALL`;
  }

  const same = (c: string) => `d.${c} IS NOT DISTINCT FROM c.${c}`;
  const grp =
    cnv === null
      ? `SELECT d.*, 0 AS conv_click, 0 AS conv_view, NULL::DECIMAL(38, 9) AS sales FROM dlv d`
      : `SELECT ${sumKeys.map((c) => `coalesce(d.${c}, c.${c}) AS ${c}`).join(', ')},
      coalesce(d.imp, 0) AS imp, coalesce(d.clk, 0) AS clk, coalesce(d.spend, 0) AS spend,
      coalesce(c.conv_click, 0) AS conv_click, coalesce(c.conv_view, 0) AS conv_view, c.sales
    FROM dlv d FULL JOIN cnv c ON ${sumKeys.map(same).join(' AND ')}`;

  // Zero-impression entities: every entity of the scope in every bucket, with or without data.
  let rows = 'grp';
  let zero = '';
  if (req.include === 'zero_impression_items') {
    const ents = `(SELECT ${ids.map((c) => (c === ENTITY_COLUMN[req.level] ? `id AS ${c}` : c)).join(', ')} FROM ${ENTITY_TABLE[req.level]})`;
    const entFilters = req.filters
      .filter((f) => f.kind === 'in' && f.field.kind === 'id' && f.field.entity !== undefined && levelRank(f.field.entity) <= levelRank(req.level))
      .map((f) => rowFilter(f, 'e', () => 'NULL', p));
    zero = `, ents AS (SELECT * FROM ${ents} e WHERE ${[scopePredicate(req, 'e', p), ...entFilters].join(' AND ')}),
  allrows AS (
    SELECT bk.b, e.${ent}, coalesce(g.imp, 0) AS imp, coalesce(g.clk, 0) AS clk, coalesce(g.spend, 0) AS spend,
      coalesce(g.conv_click, 0) AS conv_click, coalesce(g.conv_view, 0) AS conv_view, g.sales
    FROM ents e CROSS JOIN (SELECT unnest(range(${p.add(buckets.length)}))::INTEGER AS b) bk
    LEFT JOIN grp g ON g.b = bk.b AND g.${ent} = e.${ent}
  )`;
    rows = 'allrows';
  } else if (req.include === 'zero_impression_products') {
    // The account's configured products without impressions in a bucket: one synthetic row each (no entity; metrics other than impressions unavailable).
    const prodCol = (c: 'value' | 'feed' | 'item') => (c === 'feed' ? 'pr.feed_id' : c === 'item' ? 'pr.item_id' : 'NULL');
    const prodFilters = req.filters
      .filter((f) => f.kind === 'feed_items' || (f.kind === 'in' && f.field.segment === 'product'))
      .map((f) => rowFilter(f, 'pr', prodCol, p))
      .filter((x): x is string => x !== null);
    zero = `, prods AS (
    SELECT pr.feed_id AS seg_feed, pr.item_id AS seg_item FROM product_feed_items pr
    WHERE ${[`pr.ad_account_id = ${p.add(req.scope.accountId)}`, ...prodFilters].join(' AND ')}
  ), allrows AS (
    SELECT *, false AS synthetic FROM grp
    UNION ALL BY NAME
    SELECT bk.b, pr.seg_feed, pr.seg_item, 0 AS imp, true AS synthetic
    FROM prods pr CROSS JOIN (SELECT unnest(range(${p.add(buckets.length)}))::INTEGER AS b) bk
    WHERE NOT EXISTS (SELECT 1 FROM grp g WHERE g.b = bk.b AND g.seg_feed = pr.seg_feed AND g.seg_item = pr.seg_item AND g.imp > 0)
  )`;
    rows = 'allrows';
  }

  // Metrics and metadata.
  const needed = new Set<string>();
  const metaCols = new Set<string>();
  const allFields = [...req.fields, ...req.sort.map((s) => s.field), ...req.filters.flatMap((f) => (f.kind === 'feed_items' ? [] : [f.field]))];
  for (const f of allFields) {
    if (f.kind === 'entity_meta' || (f.kind === 'segment_meta' && META_SQL[f.column] !== undefined)) {
      metaCols.add(f.column);
      needed.add(f.column.split('_')[0] === 'country' ? 'cn' : (f.column.split('_')[0] as string));
    }
  }
  const joins: string[] = [];
  if (needed.has('acct')) joins.push(`LEFT JOIN ad_accounts acct ON acct.id = g.ad_account_id`);
  if (needed.has('cmpn')) joins.push(`LEFT JOIN campaigns cmpn ON cmpn.id = g.campaign_id`);
  if (needed.has('adgrp')) joins.push(`LEFT JOIN ad_groups adgrp ON adgrp.id = g.ad_group_id`);
  if (needed.has('ad')) joins.push(`LEFT JOIN ads ad ON ad.id = g.ad_id`);
  if (needed.has('prod')) joins.push(`LEFT JOIN product_feed_items prod ON prod.feed_id = g.seg_feed AND prod.item_id = g.seg_item AND prod.ad_account_id = ${p.add(req.scope.accountId)}`);
  if (needed.has('cn')) {
    joins.push(
      `LEFT JOIN (SELECT unnest(${p.add(sqlList(ctx.countries.map((c) => c.code)))}) AS code, unnest(${p.add(sqlList(ctx.countries.map((c) => c.name)))}) AS name) cn ON cn.code = g.seg_value`,
    );
  }
  // Only the metrics the request shows, sorts or filters by: each is computed for every row before the top-N (decimal spend arithmetic over 60,000 rows took half of a 30-day ad level report).
  const metrics = new Set(allFields.flatMap((f) => (f.kind === 'metric' && f.metric !== undefined ? [f.metric] : [])));
  const metricCols = [...metrics].map((m) => `${METRIC_SQL[m]} AS m_${m}`);
  // Budgets are the ones in force today (the only value some metadata takes from outside the row).
  const metaSelect = [...metaCols].map((c) => {
    const expr = META_SQL[c] ?? 'NULL';
    return `${expr.includes('$today') ? expr.replaceAll('$today', p.add(ctx.today)) : expr} AS ${c}`;
  });
  const segOut = req.segment === null ? [] : segs.map((c) => `g.${c}`);
  const synthetic = req.include === 'zero_impression_products' ? 'g.synthetic' : 'false';
  // The row's ancestors (account, campaign, ad group) from its entity's own row.
  const ancestors = ids.filter((c) => c !== ent);
  const full =
    ancestors.length === 0
      ? rows
      : `(SELECT g.*, ${ancestors.map((c) => `anc.${c}`).join(', ')} FROM ${rows} g LEFT JOIN ${ENTITY_TABLE[req.level]} anc ON anc.id = g.${ent})`;
  const met = `SELECT ${['g.b', ...ids.map((c) => `g.${c}`), ...segOut, `${synthetic} AS synthetic`, ...metricCols, ...metaSelect].join(', ')}
    FROM ${full} g ${joins.join(' ')}`;

  // Filters on finished rows: metric thresholds, metadata and names.
  const post: string[] = [];
  for (const f of req.filters) {
    if (f.kind === 'compare') post.push(`${f.field.column} ${f.op} ${p.add(f.value)}`);
    else if (f.kind === 'in' && !isSourceFilter(f)) post.push(`list_contains(${p.add(sqlList(f.values))}, ${f.field.column}::VARCHAR)`);
  }

  // Total order: user sorts (nulls last), then bucket, entity ids and segment values.
  const keyExprs: string[] = [];
  const keyDirections: ('asc' | 'desc')[] = [];
  for (const s of req.sort) {
    keyExprs.push(`(${s.field.column} IS NULL)::INTEGER`);
    keyDirections.push('asc');
    keyExprs.push(s.field.numeric ? `coalesce(${s.field.column}::DOUBLE, 0)` : `coalesce(${s.field.column}::VARCHAR, '')`);
    keyDirections.push(s.direction);
  }
  const tieCols = req.segmentFirst ? ['b', ...segs, ...ids] : keyCols;
  for (const c of tieCols) {
    keyExprs.push(c === 'b' ? 'b' : `coalesce(${c}, '')`);
    keyDirections.push('asc');
  }
  const keyColumns = keyExprs.map((_, i) => `k${i}`);
  const sql = `WITH dlv AS (
    ${dlv}
  )${cnv === null ? '' : `, cnv AS (\n    ${cnv}\n  )`}, grp AS (
    ${grp}
  )${zero}, met AS (
    ${met}
  )
  SELECT *, ${keyExprs.map((e, i) => `${e} AS k${i}`).join(', ')}
  FROM met
  ${post.length > 0 ? `WHERE ${post.join(' AND ')}` : ''}`;
  return { sql, params: p.values, buckets, keyColumns, keyDirections };
}

/** The total order of the rows (reversed: for reading backwards from a cursor). */
export const orderBy = (q: CompiledQuery, reversed = false): string =>
  q.keyColumns.map((c, i) => `${c} ${(q.keyDirections[i] === 'asc') !== reversed ? 'ASC' : 'DESC'}`).join(', ');

/**
 * Wraps the compiled query into one page: rows after (or before) the cursor's
 * keys in the total order, one more than the limit to know whether more exist.
 */
export function pageQuery(q: CompiledQuery, limit: number, cursor: { direction: 'after' | 'before'; keys: (string | number)[] } | null): CompiledQuery {
  const p = new Params();
  Object.assign(p.values, q.params);
  // Parameters of the page are named after the query's, so both sets can be bound together.
  const add = (v: DuckDBValue) => {
    const name = `pg${Object.keys(p.values).length}`;
    p.values[name] = v;
    return `$${name}`;
  };
  const backwards = cursor?.direction === 'before';
  let where = '';
  if (cursor !== null) {
    // (k0, k1, ...) beyond the cursor, each key in its own direction.
    const ors: string[] = [];
    for (let i = 0; i < q.keyColumns.length; i++) {
      const eqs = q.keyColumns.slice(0, i).map((c, j) => `${c} = ${add(cursor.keys[j] ?? null)}`);
      const ascending = (q.keyDirections[i] === 'asc') !== backwards;
      eqs.push(`${q.keyColumns[i]} ${ascending ? '>' : '<'} ${add(cursor.keys[i] ?? null)}`);
      ors.push(`(${eqs.join(' AND ')})`);
    }
    where = `WHERE ${ors.join(' OR ')}`;
  }
  const order = orderBy(q, backwards);
  return { ...q, sql: `SELECT * FROM (${q.sql}) page ${where} ORDER BY ${order} LIMIT ${add(limit + 1)}`, params: p.values };
}
