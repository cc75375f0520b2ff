import { ApiError } from '../errors/api-error.js';
import type { DuckDBValue } from '@duckdb/node-api';
import { sqlList, type Queryable, type Row } from './store.js';

/**
 * Keyset pagination over a table's `seq` column (COMPAT.md, Lists). Cursors
 * are object ids; a page is fetched with one row more than asked to know
 * `has_more`. Table and filter names come from this closed list, never from
 * the request.
 */
const LISTABLE = {
  conversion_event_settings: ['archived'],
  product_feeds: [],
  custom_audiences: ['status'],
  campaigns: [],
  ad_groups: ['campaign_id'],
  ads: ['ad_group_id'],
  webhook_endpoints: [],
  webhook_deliveries: ['endpoint_id', 'status'],
  ingest_runs: ['status'],
} as const satisfies Record<string, readonly string[]>;

export type ListableTable = keyof typeof LISTABLE;
export type FilterColumn<T extends ListableTable> = (typeof LISTABLE)[T][number];

export interface ListParams {
  limit: number;
  after?: string | undefined;
  before?: string | undefined;
  order: 'asc' | 'desc';
}

export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

export function toListEnvelope<T extends { id: string }>(data: T[], hasMore: boolean): ListEnvelope<T> {
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore };
}

export async function listPage<T extends ListableTable>(
  db: Queryable,
  table: T,
  accountId: string,
  params: ListParams,
  filters: Partial<Record<FilterColumn<T>, string | number | boolean>> = {},
  anyOf: Partial<Record<FilterColumn<T>, readonly string[]>> = {},
): Promise<{ rows: Row[]; hasMore: boolean }> {
  if (params.after !== undefined && params.before !== undefined) {
    throw new ApiError('invalid_value', 'Send only one of after and before.', { param: 'before' });
  }
  const cursorParam = params.after !== undefined ? 'after' : params.before !== undefined ? 'before' : undefined;
  const values: Record<string, DuckDBValue> = { account: accountId, limit: params.limit + 1 };
  const where = ['ad_account_id = $account'];
  for (const [column, value] of Object.entries(filters) as [string, string | number | boolean | undefined][]) {
    if (value === undefined) continue;
    if (!(LISTABLE[table] as readonly string[]).includes(column)) throw new Error(`${column} is not a filter of ${table}`);
    where.push(`${column} = $f_${column}`);
    values[`f_${column}`] = value;
  }
  for (const [column, list] of Object.entries(anyOf) as [string, readonly string[] | undefined][]) {
    if (list === undefined) continue;
    if (!(LISTABLE[table] as readonly string[]).includes(column)) throw new Error(`${column} is not a filter of ${table}`);
    where.push(`list_contains($in_${column}, ${column})`);
    values[`in_${column}`] = sqlList(list);
  }
  // Forward pages run in list order; `before` pages run the other way and are reversed.
  const forward = cursorParam !== 'before';
  const ascending = (params.order === 'asc') === forward;
  if (cursorParam !== undefined) {
    const cursorId = (params.after ?? params.before) as string;
    const cursor = await db.get(`SELECT seq FROM ${table} WHERE id = $id AND ad_account_id = $account`, { id: cursorId, account: accountId });
    if (!cursor) throw new ApiError('invalid_value', `Invalid cursor: no object '${cursorId}' in this list.`, { param: cursorParam });
    where.push(`seq ${ascending ? '>' : '<'} $cursor`);
    values['cursor'] = Number(cursor['seq']);
  }
  const rows = await db.all(
    `SELECT * FROM ${table} WHERE ${where.join(' AND ')} ORDER BY seq ${ascending ? 'ASC' : 'DESC'} LIMIT $limit`,
    values,
  );
  const hasMore = rows.length > params.limit;
  const page = rows.slice(0, params.limit);
  return { rows: forward ? page : page.reverse(), hasMore };
}
