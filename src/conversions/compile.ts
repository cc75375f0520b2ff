import type { DuckDBValue } from '@duckdb/node-api';
import { Params } from '../insights/compile.js';
import { goalSettingsSql } from '../insights/goals.js';
import { sqlList } from '../store/store.js';
import type { ConversionLevel, ConversionRequest } from './request.js';

/**
 * Conversion insights request -> SQL text and bound parameters (spec:
 * Conversion insights). Invariants as in src/insights/compile.ts: identifiers
 * only from the constants here, values only through `Params.add`, and the
 * account restriction written by `accountScope` alone.
 *
 * The account's goals are read first, once, with the fragment GET insights
 * uses (`goalSettingsSql`), so `conversions` agree; the report statements
 * take them as values. Every report statement reads the `att` subquery: the
 * account's attributions for the request's window pair, as of the data
 * watermark, placed by the time basis in a local day (no timezone function
 * on the table), keyed by (bucket, entity, breakdown value), with whether
 * each event is a goal conversion of its campaign.
 *
 * The row statements return at most `limit + 1` rows: one more than the
 * spec's limit tells the executor the result is too large, without computing
 * the rest of the response.
 */
export interface Statement {
  sql: string;
  params: Record<string, DuckDBValue>;
}

/** One conversion event setting of a campaign, and the event it names. */
export interface GoalSetting {
  campaignId: string;
  settingId: string;
  eventName: string;
}

const ENTITY_COLUMN: Record<ConversionLevel, string> = { campaign: 'campaign_id', ad_group: 'ad_group_id', ad: 'ad_id' };
const BREAKDOWN_COLUMN = { country: 'country', device: 'device' } as const;

/** The one place a source table is restricted to the request's account. */
const accountScope = (req: ConversionRequest, alias: string, p: Params): string => `${alias}.ad_account_id = ${p.add(req.accountId)}`;

/** The entities the report has rows for: the requested ids, or the account itself when not grouping by entity without ids. */
export function reportEntities(req: ConversionRequest): string[] {
  if (!req.groupByEntity) return [req.accountId];
  return req.entityIds ?? [];
}

/** The account's goals: (campaign, setting, event name) rows (shared/EVENTS.md, Goal conversions). */
export function goalSettingsStatement(req: ConversionRequest): Statement {
  const p = new Params();
  const sql = `SELECT campaign_id, setting_id, event_name FROM (${goalSettingsSql(p.add(req.accountId))}) gs`;
  return { sql, params: p.values };
}

/** A (campaign, event) pair as one value: ids never hold NUL. */
const pairKey = (campaignExpr: string, eventExpr: string) => `${campaignExpr} || chr(0) || ${eventExpr}`;

/**
 * Places each attribution in its local day: an ASOF join with the days' UTC
 * start instants, computed in JS from the account timezone (src/insights/
 * buckets.ts). The range predicate keeps rows inside the last day's end. No
 * timezone function runs over the table, and the map has one row per day
 * (GET insights maps quarter-hours, which its hourly buckets and ragged
 * ranges need; conversion insights have only whole days).
 */
function dayBucketJoin(req: ConversionRequest, p: Params, ts: string): { join: string; bucket: string } {
  const starts = req.buckets.map((b) => b.startS * 1_000_000);
  return {
    join: `ASOF JOIN (SELECT unnest(${p.addIntegers(starts, 'BIGINT')}) AS s, unnest(range(${p.add(starts.length)}))::INTEGER AS b) dm ON ${ts} >= dm.s`,
    bucket: 'dm.b',
  };
}

/** The attributions a request reads, one row per attributed conversion. */
function attributedSql(req: ConversionRequest, goals: readonly GoalSetting[], p: Params, watermark: number): string {
  const ts = req.attribution.basis === 'ad_event_time' ? 'a.touch_ts_us' : 'a.conversion_ts_us';
  const bucket = req.granularity === 'none' ? { join: '', bucket: '0' } : dayBucketJoin(req, p, ts);
  const entityCol = `a.${ENTITY_COLUMN[req.level]}`;
  const wm = p.add(watermark);
  const where = [
    accountScope(req, 'a', p),
    `a.click_window = ${p.add(req.attribution.clickDays)} AND a.view_window = ${p.add(req.attribution.viewDays)}`,
    `${ts} >= ${p.add(req.range.startS * 1_000_000)} AND ${ts} < ${p.add(req.range.endS * 1_000_000)}`,
    `a.valid_from <= ${wm} AND (a.valid_to IS NULL OR a.valid_to > ${wm})`,
  ];
  if (req.entityIds !== null) where.push(`list_contains(${p.add(sqlList(req.entityIds))}, ${entityCol})`);
  const seg = req.breakdown === null ? 'NULL::VARCHAR' : `a.${BREAKDOWN_COLUMN[req.breakdown]}`;
  const entity = req.groupByEntity ? entityCol : `${p.add(req.accountId)}::VARCHAR`;
  const goalPairs = [...new Set(goals.map((g) => `${g.campaignId}\u0000${g.eventName}`))];
  // (A list parameter cannot be empty: DuckDB cannot type it. No goals: nothing is a goal.)
  const isGoal = goalPairs.length === 0 ? 'false' : `coalesce(list_contains(${p.add(sqlList(goalPairs))}, ${pairKey('a.campaign_id', 'a.event_name')}), false)`;
  return `SELECT ${bucket.bucket}::INTEGER AS b, ${entity} AS entity_id, ${seg} AS seg, a.kind, a.event_name, a.value, a.campaign_id,
      ${isGoal} AS is_goal
    FROM attributions a ${bucket.join}
    WHERE ${where.join('\n      AND ')}`;
}

/** Events whose details are shown: all, or the selected names. */
const selected = (req: ConversionRequest, p: Params, col = 'event_name'): string =>
  req.eventNames === null ? 'true' : `list_contains(${p.add(sqlList(req.eventNames))}, ${col})`;

/** Selected attributed events, once per conversion event setting of their campaign that names them (alias `gs`). */
function withGoalSettings(req: ConversionRequest, goals: readonly GoalSetting[], p: Params): string {
  const list = (f: (g: GoalSetting) => string) => (goals.length === 0 ? 'NULL::VARCHAR' : `unnest(${p.add(sqlList(goals.map(f)))})::VARCHAR`);
  const gs = `SELECT ${list((g) => g.campaignId)} AS campaign_id, ${list((g) => g.settingId)} AS setting_id, ${list((g) => g.eventName)} AS event_name`;
  return `FROM att JOIN (${gs}) gs ON gs.campaign_id = att.campaign_id AND gs.event_name = att.event_name
      WHERE ${selected(req, p, 'att.event_name')}`;
}

/**
 * Summary rows with data (spec: Conversion insights, summary row fields), at
 * most `limit + 1`, in no particular order. Without `include_zero_rows` a row
 * stays when it has goal conversions, a nonzero sales amount or, with the
 * event expansion, a selected event. Zero rows for entities and dates without
 * data are added by the executor: they need no table.
 */
export function summarySql(req: ConversionRequest, goals: readonly GoalSetting[], watermark: number, limit: number): Statement {
  const p = new Params();
  const att = attributedSql(req, goals, p, watermark);
  const keep = req.includeZeroRows ? 'true' : `ct + vt > 0 OR coalesce(sales, 0) <> 0 OR picked > 0`;
  const sql = `WITH att AS (
    ${att}
  ), sm AS (
    SELECT b, entity_id, seg,
      count(*) FILTER (WHERE is_goal AND kind = 'click') AS ct,
      count(*) FILTER (WHERE is_goal AND kind = 'view') AS vt,
      sum(value) FILTER (WHERE event_name = 'order_created') AS sales,
      count(*) FILTER (WHERE ${req.expandEvents ? selected(req, p) : 'false'}) AS picked
    FROM att GROUP BY b, entity_id, seg
  )
  SELECT b, entity_id, seg, ct, vt, sales::VARCHAR AS sales FROM sm
  WHERE ${keep}
  LIMIT ${p.add(limit + 1)}`;
  return { sql, params: p.values };
}

/**
 * Event detail rows (spec: Conversion insights, nested event fields): every
 * attributed event, goal or not, per summary row key and event name, at most
 * `limit + 1` in all, each with its goal conversions by conversion event
 * setting (`conversion_event_setting_breakdowns`: an event counts for every
 * setting of its campaign that names it). Every such row has a count, so its
 * summary row is kept under either `include_zero_rows`. Run only once the
 * settings per event are known to be within their limit.
 */
export function eventsSql(req: ConversionRequest, goals: readonly GoalSetting[], watermark: number, limit: number): Statement {
  const p = new Params();
  const att = attributedSql(req, goals, p, watermark);
  const sql = `WITH att AS (
    ${att}
  ), ev AS (
    SELECT b, entity_id, seg, event_name,
      count(*) AS n, count(*) FILTER (WHERE kind = 'click') AS n_click, count(*) FILTER (WHERE kind = 'view') AS n_view,
      sum(value)::VARCHAR AS amount, count(value) AS n_value
    FROM att WHERE ${selected(req, p)}
    GROUP BY b, entity_id, seg, event_name
    LIMIT ${p.add(limit + 1)}
  ), brk AS (
    SELECT b, entity_id, seg, event_name,
      list({'setting_id': setting_id, 'ct': ct, 'vt': vt} ORDER BY setting_id) AS settings
    FROM (
      SELECT att.b, att.entity_id, att.seg, att.event_name, gs.setting_id,
        count(*) FILTER (WHERE att.kind = 'click')::INTEGER AS ct, count(*) FILTER (WHERE att.kind = 'view')::INTEGER AS vt
      ${withGoalSettings(req, goals, p)}
      GROUP BY ALL
    )
    GROUP BY b, entity_id, seg, event_name
  )
  SELECT ev.*, brk.settings FROM ev
  LEFT JOIN brk ON brk.b = ev.b AND brk.entity_id = ev.entity_id AND brk.seg IS NOT DISTINCT FROM ev.seg AND brk.event_name = ev.event_name`;
  return { sql, params: p.values };
}

/** The largest number of settings that name one event: a bound on any event row's goal-setting breakdown. */
export function settingsPerEvent(goals: readonly GoalSetting[]): number {
  const byEvent = new Map<string, Set<string>>();
  for (const g of goals) byEvent.set(g.eventName, (byEvent.get(g.eventName) ?? new Set()).add(g.settingId));
  return Math.max(0, ...[...byEvent.values()].map((s) => s.size));
}

/** The exact check, run only when the bound above exceeds the limit: some event row has more than `limit` goal settings. */
export function breakdownProbeSql(req: ConversionRequest, goals: readonly GoalSetting[], watermark: number, limit: number): Statement {
  const p = new Params();
  const att = attributedSql(req, goals, p, watermark);
  const sql = `WITH att AS (
    ${att}
  )
  SELECT 1 AS over ${withGoalSettings(req, goals, p)}
  GROUP BY att.b, att.entity_id, att.seg, att.event_name
  HAVING count(DISTINCT gs.setting_id) > ${p.add(limit)}
  LIMIT 1`;
  return { sql, params: p.values };
}
