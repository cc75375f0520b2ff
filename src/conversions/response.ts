import { z } from 'zod';
import { isStandardEvent } from '../domain/standard-events.js';
import type { Row } from '../store/store.js';
import type { ConversionRequest } from './request.js';

/**
 * The response of POST /conversions/insights (spec: Conversion insights,
 * Response, summary row fields, nested event fields) and how statement rows
 * become it: summary rows in order, each with its event details.
 */
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

/** Row order: date, entity, breakdown value (unknown last); details by event name. */
function byRowOrder(x: Row, y: Row): number {
  const cmp = (a: unknown, b: unknown) => (a === b ? 0 : a === null || a === undefined ? 1 : b === null || b === undefined ? -1 : String(a) < String(b) ? -1 : 1);
  return Number(x['b']) - Number(y['b']) || cmp(x['entity_id'], y['entity_id']) || cmp(x['seg'], y['seg']) || cmp(x['event_name'], y['event_name']);
}

const keyOf = (r: Row): string => JSON.stringify([Number(r['b']), r['entity_id'], r['seg'] ?? null]);

function rowKeys(req: ConversionRequest, r: Row): RowKeys {
  const out: RowKeys = { entity_id: String(r['entity_id']) };
  if (req.granularity === 'daily') out.date = req.buckets[Number(r['b'])]?.readable ?? '';
  if (req.breakdown !== null) out[req.breakdown] = r['seg'] === null || r['seg'] === undefined ? null : String(r['seg']);
  return out;
}

const StoredBreakdown = z.array(z.object({ setting_id: z.string(), ct: z.number(), vt: z.number() })).nullable();

function settingBreakdowns(v: unknown): SettingBreakdown[] {
  return (StoredBreakdown.parse(v ?? null) ?? []).map((s) => ({
    conversion_event_setting_id: s.setting_id,
    conversions: s.ct + s.vt,
    click_through_conversions: s.ct,
    view_through_conversions: s.vt,
  }));
}

export function shapeResponse(req: ConversionRequest, currency: string, summary: Row[], events: Row[]): ConversionInsights {
  const byRow = new Map<string, AttributedEventRow[]>();
  for (const r of [...events].sort(byRowOrder)) {
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
      conversion_event_setting_breakdowns: settingBreakdowns(r['settings']),
    });
    byRow.set(keyOf(r), list);
  }
  const data = [...summary].sort(byRowOrder).map((r): SummaryRow => {
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
