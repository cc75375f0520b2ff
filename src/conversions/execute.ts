import { ApiError } from '../errors/api-error.js';
import { currentWatermark } from '../insights/watermark.js';
import type { Queryable, Row } from '../store/store.js';
import { breakdownProbeSql, eventsSql, goalSettingsStatement, reportEntities, settingsPerEvent, summarySql, type GoalSetting, type Statement } from './compile.js';
import type { ConversionRequest } from './request.js';
import { shapeResponse, type ConversionInsights } from './response.js';

/**
 * Runs a normalized conversion insights request and shapes the response
 * (spec: Conversion insights, Response). The three row limits (spec: Limits)
 * are decided by statements that stop one row past their limit (zero rows by
 * arithmetic first; goal settings per event by a bound, then a probe only when
 * the bound is over), before the details are shaped; a result over a limit is
 * a 413 with no partial data.
 */
export const MAX_SUMMARY_ROWS = 2000;
export const MAX_EVENT_ROWS = 2000;
export const MAX_SETTING_BREAKDOWNS = 2000;

function tooLarge(what: string, limit: number, advice: string): ApiError {
  return new ApiError('result_too_large', `The result has more than ${limit} ${what}. ${advice} No partial result is returned.`, { param: null });
}
const SPLIT = 'Reduce entity_ids (or report with group_by_entity false), split the time range into shorter non-overlapping date ranges, or use time_granularity none';

async function run(db: Queryable, s: Statement): Promise<Row[]> {
  return db.all(s.sql, s.params);
}

export async function runConversionInsights(db: Queryable, req: ConversionRequest, currency: string): Promise<ConversionInsights> {
  const watermark = await currentWatermark(db);
  const entities = reportEntities(req);
  // Zero rows alone can exceed the limit: known without reading anything.
  if (req.includeZeroRows && entities.length * req.buckets.length > MAX_SUMMARY_ROWS) throw tooLarge('summary rows', MAX_SUMMARY_ROWS, `${SPLIT}.`);
  const goals = (await run(db, goalSettingsStatement(req))).map(
    (r): GoalSetting => ({ campaignId: String(r['campaign_id']), settingId: String(r['setting_id']), eventName: String(r['event_name']) }),
  );
  const found = await run(db, summarySql(req, goals, watermark, MAX_SUMMARY_ROWS));
  const summary = req.includeZeroRows ? [...found, ...zeroRows(req, entities, found)] : found;
  if (summary.length > MAX_SUMMARY_ROWS) throw tooLarge('summary rows', MAX_SUMMARY_ROWS, `${SPLIT}.`);

  let events: Row[] = [];
  if (req.expandEvents) {
    // An event row's breakdown has at most as many entries as settings name its event; only above the limit is the exact probe needed.
    if (settingsPerEvent(goals) > MAX_SETTING_BREAKDOWNS && (await run(db, breakdownProbeSql(req, goals, watermark, MAX_SETTING_BREAKDOWNS))).length > 0) {
      throw tooLarge('conversion event setting entries for one event', MAX_SETTING_BREAKDOWNS, `${SPLIT}, or select fewer event_names.`);
    }
    events = await run(db, eventsSql(req, goals, watermark, MAX_EVENT_ROWS));
    if (events.length > MAX_EVENT_ROWS) throw tooLarge('attributed event rows', MAX_EVENT_ROWS, `${SPLIT}, or select fewer event_names.`);
  }
  return shapeResponse(req, currency, summary, events);
}

/** Spec: include_zero_rows. Every report entity on every date; a pair without data gets one zero row (its breakdown value null). */
function zeroRows(req: ConversionRequest, entities: readonly string[], found: readonly Row[]): Row[] {
  const seen = new Set(found.map((r) => JSON.stringify([Number(r['b']), r['entity_id']])));
  const out: Row[] = [];
  for (let b = 0; b < req.buckets.length; b++) {
    for (const e of entities) if (!seen.has(JSON.stringify([b, e]))) out.push({ b, entity_id: e, seg: null, ct: 0, vt: 0, sales: null });
  }
  return out;
}
