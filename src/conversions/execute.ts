import { isStandardEvent } from '../domain/standard-events.js';
import { ApiError } from '../errors/api-error.js';
import { currentWatermark } from '../insights/watermark.js';
import type { Queryable, Row } from '../store/store.js';
import { breakdownProbeSql, breakdownsSql, eventsSql, settingsPerEventSql, summarySql, type Statement } from './compile.js';
import type { ConversionRequest } from './request.js';

/**
 * Runs a normalized conversion insights request and shapes the response
 * (spec: Conversion insights, Response). The three row limits (spec: Limits)
 * are decided before anything else is read, each by a statement that stops at
 * one row past its limit; a result over a limit is a 413 with no partial data.
 */
export const MAX_SUMMARY_ROWS = 2000;
export const MAX_EVENT_ROWS = 2000;
export const MAX_SETTING_BREAKDOWNS = 2000;

export interface SettingBreakdown {
  conversion_event_setting_id: string;
  conversions: number;
  click_through_conversions: number;
  view_through_conversions: number;
}

/** Keys a row carries for its date and breakdown (present only when they apply). */
type RowKeys = { entity_id: string; date?: string; country?: string | null; device?: string | null };

export type AttributedEventRow = RowKeys & {
  event_name: string;
  event_kind: 'standard' | 'custom';
  attributed_event_count: number;
  click_through_attributed_event_count: number;
  view_through_attributed_event_count: number;
  attributed_event_value_amount: string | null;
  attributed_event_value_count: number;
  attributed_event_value_currency: string | null;
  conversion_event_setting_breakdowns: SettingBreakdown[];
};

export type SummaryRow = RowKeys & {
  conversions: number;
  click_through_conversions: number;
  view_through_conversions: number;
  order_created_attributed_sales: string | null;
  order_created_attributed_sales_currency: string | null;
  attributed_events?: AttributedEventRow[];
};

export interface ConversionInsights {
  object: 'list';
  data: SummaryRow[];
  count: number;
  account_currency: string;
}

/** Exact decimal text without trailing zeros: DuckDB's DECIMAL(38, 9) `12.340000000` is `12.34` (unrounded, spec: summary sales). */
export function decimalText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const s = String(v);
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

const count = (v: unknown): number => Number(v ?? 0);

function tooLarge(what: string, limit: number, advice: string): ApiError {
  return new ApiError('result_too_large', `The result has more than ${limit} ${what}. ${advice} No partial result is returned.`, { param: null });
}
const SPLIT = 'Reduce entity_ids (or report with group_by_entity false), split the time range into shorter non-overlapping date ranges, or use time_granularity none';

async function run(db: Queryable, s: Statement): Promise<Row[]> {
  return db.all(s.sql, s.params);
}

export async function runConversionInsights(db: Queryable, req: ConversionRequest, currency: string): Promise<ConversionInsights> {
  const watermark = await currentWatermark(db);
  // Zero rows alone can exceed the limit: known without reading anything.
  const gridRows = req.includeZeroRows ? (req.groupByEntity ? (req.entityIds?.length ?? 0) : 1) * req.buckets.length : 0;
  if (gridRows > MAX_SUMMARY_ROWS) throw tooLarge('summary rows', MAX_SUMMARY_ROWS, `${SPLIT}.`);
  const summary = await run(db, summarySql(req, watermark, MAX_SUMMARY_ROWS));
  if (summary.length > MAX_SUMMARY_ROWS) throw tooLarge('summary rows', MAX_SUMMARY_ROWS, `${SPLIT}.`);

  let events: Row[] = [];
  let breakdowns: Row[] = [];
  if (req.expandEvents) {
    events = await run(db, eventsSql(req, watermark, MAX_EVENT_ROWS));
    if (events.length > MAX_EVENT_ROWS) throw tooLarge('attributed event rows', MAX_EVENT_ROWS, `${SPLIT}, or select fewer event_names.`);
    // An event row's breakdown has at most as many entries as settings name its event; only then is the exact check needed.
    const bound = count((await run(db, settingsPerEventSql(req)))[0]?.['n']);
    if (bound > MAX_SETTING_BREAKDOWNS && (await run(db, breakdownProbeSql(req, watermark, MAX_SETTING_BREAKDOWNS))).length > 0) {
      throw tooLarge('conversion event setting entries for one event', MAX_SETTING_BREAKDOWNS, `${SPLIT}, or select fewer event_names.`);
    }
    if (events.length > 0) breakdowns = await run(db, breakdownsSql(req, watermark));
  }
  return shape(req, currency, summary, events, breakdowns);
}

const keyOf = (r: Row): string => JSON.stringify([Number(r['b']), r['entity_id'], r['seg'] ?? null]);

function rowKeys(req: ConversionRequest, r: Row): RowKeys {
  const out: RowKeys = { entity_id: String(r['entity_id']) };
  if (req.granularity === 'daily') out.date = req.buckets[Number(r['b'])]?.readable ?? '';
  if (req.breakdown !== null) out[req.breakdown] = r['seg'] === null || r['seg'] === undefined ? null : String(r['seg']);
  return out;
}

function shape(req: ConversionRequest, currency: string, summary: Row[], events: Row[], breakdowns: Row[]): ConversionInsights {
  const bySetting = new Map<string, SettingBreakdown[]>();
  for (const r of breakdowns) {
    const k = `${keyOf(r)}|${String(r['event_name'])}`;
    const ct = count(r['ct']);
    const vt = count(r['vt']);
    const list = bySetting.get(k) ?? [];
    list.push({ conversion_event_setting_id: String(r['setting_id']), conversions: ct + vt, click_through_conversions: ct, view_through_conversions: vt });
    bySetting.set(k, list);
  }
  const byRow = new Map<string, AttributedEventRow[]>();
  for (const r of events) {
    const name = String(r['event_name']);
    const amount = decimalText(r['amount']);
    const list = byRow.get(keyOf(r)) ?? [];
    list.push({
      ...rowKeys(req, r),
      event_name: name,
      event_kind: isStandardEvent(name) ? 'standard' : 'custom',
      attributed_event_count: count(r['n']),
      click_through_attributed_event_count: count(r['n_click']),
      view_through_attributed_event_count: count(r['n_view']),
      attributed_event_value_amount: amount,
      attributed_event_value_count: count(r['n_value']),
      attributed_event_value_currency: amount === null ? null : currency,
      conversion_event_setting_breakdowns: bySetting.get(`${keyOf(r)}|${name}`) ?? [],
    });
    byRow.set(keyOf(r), list);
  }
  const data = summary.map((r): SummaryRow => {
    const ct = count(r['ct']);
    const vt = count(r['vt']);
    const sales = decimalText(r['sales']);
    const row: SummaryRow = {
      ...rowKeys(req, r),
      conversions: ct + vt,
      click_through_conversions: ct,
      view_through_conversions: vt,
      order_created_attributed_sales: sales,
      order_created_attributed_sales_currency: sales === null ? null : currency,
    };
    if (req.expandEvents) row.attributed_events = byRow.get(keyOf(r)) ?? [];
    return row;
  });
  return { object: 'list', data, count: data.length, account_currency: currency };
}
