import { DateTime } from 'luxon';
import type { Clock } from '../clock.js';
import { COUNTRY_ROWS } from '../domain/locations/country-data.js';
import type { Row, Store } from '../store/store.js';
import { levelRank, LEVELS, type Level } from './catalog.js';
import { compileInsights, pageQuery, type CompiledQuery } from './compile.js';
import { keyValue, pageSnapshots, prefixLength, snapshotKey } from './page-snapshots.js';
import { decodeCursor, encodeToken, queryDigest } from './cursor.js';
import { dataState } from './watermark.js';
import { ApiError } from '../errors/api-error.js';
import type { InsightsRequest } from './request.js';

/**
 * Runs a normalized request: compile, read one page (one row more than the
 * limit), and shape flat wire rows and the list envelope (spec: Insights (GET)).
 */
export type WireValue = string | number | null;
export type WireRow = Record<string, WireValue>;

export interface InsightsPage {
  object: 'list';
  data: WireRow[];
  count: number;
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

const COUNTRY_NAMES = COUNTRY_ROWS.map(([code, , name]) => ({ code, name }));

const ENTITY_COLUMN: Record<Level, string> = { ad_account: 'ad_account_id', campaign: 'campaign_id', ad_group: 'ad_group_id', ad: 'ad_id' };

/** Numbers from DuckDB (bigint, decimals as strings) to JSON numbers; spend-like values cleaned of float noise. */
function num(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
}
const round = (n: number | null, digits: number): number | null => (n === null ? null : Number(n.toFixed(digits)));
const METRIC_DIGITS: Record<string, number> = { m_spend: 6, m_cpc: 6, m_cpm: 6, m_cpa: 6, m_order_created_attributed_sales: 9 };

function wireValue(column: string, v: unknown, numeric: boolean): WireValue {
  if (!numeric) return v === null || v === undefined ? null : String(v);
  const n = num(v);
  const digits = METRIC_DIGITS[column];
  return digits === undefined ? n : round(n, digits);
}

export async function runInsights(deps: { store: Store; clock: Clock }, req: InsightsRequest, accountTimezone: string, signal?: AbortSignal): Promise<InsightsPage> {
  const digest = queryDigest(req);
  const cursor = req.cursor === null ? null : { direction: req.cursor.direction, token: decodeCursor(req.cursor.token, req.cursor.direction, digest) };
  // A cursor reads the data as of its first page; a first page pins the current watermark.
  const state = await deps.store.memo(`insights:state:${req.scope.accountId}`, () => dataState(deps.store, req.scope.accountId));
  if (cursor !== null && cursor.token.w < state.horizon) {
    throw new ApiError('invalid_value', `${cursor.direction} is a cursor older than a day; its data has been compacted. Start again from the first page.`, {
      param: cursor.direction,
    });
  }
  const watermark = cursor?.token.w ?? state.watermark;
  const today = DateTime.fromMillis(deps.clock.nowMs(), { zone: accountTimezone }).toISODate() ?? '';
  const calendarZone = state.calendarZone;
  const compiled = compileInsights(req, { today, countries: COUNTRY_NAMES, watermark, calendarZone });
  // A first page reads and keeps the first rows of the order, a cursor page inside them is cut from them;
  // other cursor pages read the query's whole result, kept from the first such page on (page-snapshots.ts).
  const snapshots = pageSnapshots(deps.store);
  const key = snapshotKey(compiled);
  const nowMs = deps.clock.nowMs();
  const opts = signal === undefined ? {} : { signal };
  let rows: Row[];
  if (cursor === null) {
    const length = prefixLength(req.limit);
    const first = pageQuery(compiled, length, null);
    const prefix = await deps.store.all(first.sql, first.params, opts);
    snapshots.keepPrefix(key, prefix, prefix.length <= length, nowMs);
    rows = prefix.slice(0, req.limit + 1);
  } else {
    const keys = { direction: cursor.direction, keys: cursor.token.k };
    rows = snapshots.readPrefix(key, keys.direction, keys.keys, compiled.keyColumns, req.limit, nowMs) ?? (await readWhole(deps.store, snapshots, compiled, key, keys, req.limit, nowMs, signal));
  }
  const hasMore = rows.length > req.limit;
  rows = rows.slice(0, req.limit);
  if (cursor?.direction === 'before') rows.reverse();

  const data = rows.map((r) => toWire(req, r, compiled.buckets, compiled.keyColumns, watermark, digest));
  return {
    object: 'list',
    data,
    count: data.length,
    first_id: (data[0]?.['id'] as string | undefined) ?? null,
    last_id: (data[data.length - 1]?.['id'] as string | undefined) ?? null,
    has_more: hasMore,
  };
}

/** A cursor page from the query's whole result: its snapshot, made now if none is kept, or the query itself when too large to keep. */
async function readWhole(
  store: Store,
  snapshots: ReturnType<typeof pageSnapshots>,
  compiled: CompiledQuery,
  key: string,
  keys: { direction: 'after' | 'before'; keys: (string | number)[] },
  limit: number,
  nowMs: number,
  signal?: AbortSignal,
): Promise<Row[]> {
  const table = snapshots.lookup(key, nowMs) ?? (await snapshots.make(key, compiled.sql, compiled.params, nowMs, signal));
  const read = (q: CompiledQuery) => {
    const page = pageQuery(q, limit, keys);
    return store.all(page.sql, page.params, signal === undefined ? {} : { signal });
  };
  try {
    return await read(table === null ? compiled : { ...compiled, sql: `SELECT * FROM ${table}`, params: {} });
  } catch (err) {
    // A snapshot another request evicted between lookup and read: the full query gives the same page.
    if (table === null || signal?.aborted === true) throw err;
    return read(compiled);
  }
}

function toWire(req: InsightsRequest, r: Row, buckets: { startS: number; endS: number; readable: string | null }[], keyColumns: string[], watermark: number, digest: string): WireRow {
  const bucket = buckets[Number(r['b'])] ?? buckets[0];
  const entityId = String(r[ENTITY_COLUMN[req.level]] ?? '');
  let id = `start=${bucket?.startS}:end=${bucket?.endS}:entity_id=${entityId}`;
  if (req.segment === 'product') id += `:product=${String(r['seg_feed'] ?? '')}/${String(r['seg_item'] ?? '')}`;
  else if (req.segment !== null) id += `:${req.segment}=${String(r['seg_value'] ?? '')}`;
  const keys = keyColumns.map((k) => keyValue(r[k]));
  id += `:cursor=${encodeToken({ k: keys, w: watermark, h: digest })}`;
  const out: WireRow = { id, start_time: bucket?.startS ?? null, end_time: bucket?.endS ?? null };
  if (req.granularity !== 'none') out['readable_time'] = bucket?.readable ?? null;
  const synthetic = r['synthetic'] === true;
  for (const f of req.fields) {
    if (f.name === 'metadata.readable_time') continue;
    // Synthetic zero-product rows omit what they cannot have: metrics other than impressions, and entity fields.
    if (synthetic && ((f.kind === 'metric' && f.metric !== 'impressions') || f.kind === 'id' || f.kind === 'entity_meta')) continue;
    if (f.name === 'metadata.timezone') {
      out[f.wire] = req.range.timezone;
      continue;
    }
    out[f.wire] = wireValue(f.column, r[f.column], f.numeric);
  }
  return out;
}

/** Levels an endpoint may report at (its own and those below). */
export const levelsBelow = (l: Level): Level[] => LEVELS.filter((x) => levelRank(x) >= levelRank(l));
