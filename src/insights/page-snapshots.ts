import { createHash } from 'node:crypto';
import { randomToken } from '../ids.js';
import type { Row, SqlParams, Store } from '../store/store.js';

/**
 * Page snapshots: the first cursor page of a query materializes the query's
 * whole keyed result (at the watermark its cursor pins) in an in-memory
 * database attached to the store, and that page and the ones after it are
 * read from there by keyset, instead of aggregating the rollups again for
 * every page. Data at a watermark never changes, so a snapshot page equals
 * the page the full query would give (entity metadata is as of the
 * snapshot, which keeps a long walk through the pages consistent).
 *
 * First pages never make one: they read only their top rows (a top-N), and
 * materializing a whole large result costs about twice that (measured on the
 * bench's 60,000-row ad level report), which a single-page report would pay
 * for nothing. A cursor whose snapshot is gone (evicted, kept by another
 * process) makes it again.
 *
 * Instead, a first page reads the first `prefixLength(limit)` rows of the
 * order (three pages) for nearly the same top-N cost, and keeps them here, in
 * memory: the cursor pages that fall inside them are cut from that prefix
 * without touching the database (`readPrefix`). A prefix is the start of the
 * total order, so the rows after a cursor row in it are the result's next
 * rows (as long as it holds enough of them, or is the whole result), and the
 * rows before it are all there.
 *
 * Bounds: results over `MAX_ROWS` rows are not kept (and the same query
 * text is not tried again for a while: its pages read top-N directly);
 * the kept ones hold at most `BUDGET_ROWS` rows in all and live at most
 * `TTL_MS` after their last use, least recently used dropped first.
 */
const SCHEMA = 'insights_pages';
export const MAX_ROWS = 100_000;
const BUDGET_ROWS = 2_000_000;
const TTL_MS = 15 * 60_000;
/** Rows of all kept prefixes together (each row holds the page's fields, a few hundred bytes). */
const PREFIX_BUDGET_ROWS = 50_000;

/**
 * How many rows a first page reads and keeps: three pages, within [limit,
 * 4000]. Rows reach JS at about 15 µs each (bench: 1,000 rows added 15 ms
 * to a first page, 300 rows 4 ms), so a longer prefix would tax every
 * first page for walks that seldom go that far.
 */
export const prefixLength = (limit: number): number => Math.max(limit, Math.min(3 * limit, 4000));

/** A row's sort keys as its cursor token holds them (numbers and strings). */
export const keyValue = (v: unknown): string | number => (typeof v === 'number' || typeof v === 'string' ? v : Number(v));

interface Prefix {
  rows: Row[];
  /** The rows are the whole result. */
  complete: boolean;
  usedAtMs: number;
}

interface Entry {
  table: string;
  rows: number;
  usedAtMs: number;
}

class Snapshots {
  /** By snapshot key, in least-recently-used order (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();
  private attached: Promise<void> | null = null;
  /** Query texts whose result was recently too large to keep: their cursor pages skip the attempt (it would cost a second run). */
  private readonly tooLarge = new Set<string>();

  /** First pages' prefixes by snapshot key, least recently used first. */
  private readonly prefixes = new Map<string, Prefix>();

  constructor(private readonly store: Store) {}

  /** Keeps the first rows of a result (in order): `complete` when they are all of it. */
  keepPrefix(key: string, rows: Row[], complete: boolean, nowMs: number): void {
    this.prefixes.delete(key);
    this.prefixes.set(key, { rows, complete, usedAtMs: nowMs });
    let total = [...this.prefixes.values()].reduce((n, e) => n + e.rows.length, 0);
    for (const [k, e] of this.prefixes) {
      if (total <= PREFIX_BUDGET_ROWS && nowMs - e.usedAtMs <= TTL_MS) break;
      this.prefixes.delete(k);
      total -= e.rows.length;
    }
  }

  /**
   * A cursor page cut from the kept prefix of `key`: up to `limit + 1` rows
   * after (or, backwards, before) the row whose sort keys are `keys`, in
   * reading order. Null when the prefix cannot tell: none kept, the cursor
   * row is not in it, or too few rows follow it in an incomplete prefix.
   */
  readPrefix(key: string, direction: 'after' | 'before', keys: readonly (string | number)[], keyColumns: readonly string[], limit: number, nowMs: number): Row[] | null {
    const entry = this.prefixes.get(key);
    if (entry === undefined) return null;
    if (nowMs - entry.usedAtMs > TTL_MS) {
      this.prefixes.delete(key);
      return null;
    }
    entry.usedAtMs = nowMs;
    const at = entry.rows.findIndex((r) => keyColumns.every((c, i) => keyValue(r[c]) === keys[i]));
    if (at < 0) return null;
    if (direction === 'before') return entry.rows.slice(Math.max(0, at - limit - 1), at).reverse();
    const next = entry.rows.slice(at + 1, at + 2 + limit);
    return next.length === limit + 1 || entry.complete ? next : null;
  }

  private attach(): Promise<void> {
    this.attached ??= this.store.all(`ATTACH IF NOT EXISTS ':memory:' AS ${SCHEMA}`).then(() => undefined);
    return this.attached;
  }

  /** The snapshot table of `key` if one is kept, marked as just used. */
  lookup(key: string, nowMs: number): string | null {
    const entry = this.entries.get(key);
    if (entry === undefined) return null;
    this.entries.delete(key);
    if (nowMs - entry.usedAtMs > TTL_MS) {
      void this.drop(entry);
      return null;
    }
    entry.usedAtMs = nowMs;
    this.entries.set(key, entry);
    return `${SCHEMA}.${entry.table}`;
  }

  /**
   * Materializes `sql` (the keyed result) under `key`;
   * returns the table, or null when the result has more than MAX_ROWS rows
   * (nothing is kept then).
   */
  async make(key: string, sql: string, params: SqlParams, nowMs: number, signal?: AbortSignal): Promise<string | null> {
    if (this.tooLarge.has(sql)) return null;
    await this.attach();
    const table = `p_${randomToken(12)}`;
    const opts = signal === undefined ? {} : { signal };
    // Unordered: pages sort what they read anyway, and sorting here cost half again as much (bench data).
    await this.store.all(`CREATE TABLE ${SCHEMA}.${table} AS SELECT * FROM (${sql}) s LIMIT ${MAX_ROWS + 1}`, params, opts);
    const rows = Number((await this.store.get(`SELECT count(*) AS n FROM ${SCHEMA}.${table}`))?.['n'] ?? 0);
    const entry: Entry = { table, rows, usedAtMs: nowMs };
    if (rows > MAX_ROWS) {
      if (this.tooLarge.size >= 1000) this.tooLarge.clear();
      this.tooLarge.add(sql);
      await this.drop(entry);
      return null;
    }
    const old = this.entries.get(key);
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (old !== undefined) await this.drop(old);
    await this.evict(nowMs);
    return `${SCHEMA}.${table}`;
  }

  private async evict(nowMs: number): Promise<void> {
    let total = [...this.entries.values()].reduce((n, e) => n + e.rows, 0);
    for (const [key, entry] of this.entries) {
      if (total <= BUDGET_ROWS && nowMs - entry.usedAtMs <= TTL_MS) break;
      this.entries.delete(key);
      total -= entry.rows;
      await this.drop(entry);
    }
  }

  /** Drops a table no longer listed (a read already under way on it keeps its own view of the catalog). */
  private async drop(entry: Entry): Promise<void> {
    await this.store.all(`DROP TABLE IF EXISTS ${SCHEMA}.${entry.table}`).catch(() => undefined);
  }

  /** Forgets every snapshot (tests: the next cursor page makes it again). */
  async clear(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    this.prefixes.clear();
    for (const e of all) await this.drop(e);
  }
}

/** Same text and values, same rows: the key of a compiled query's snapshot (the watermark is one of its values). */
export function snapshotKey(q: { sql: string; params: Record<string, unknown> }): string {
  const values = JSON.stringify(q.params, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return createHash('sha256').update(q.sql).update('\u0000').update(values).digest('base64url');
}

const byStore = new WeakMap<Store, Snapshots>();

export function pageSnapshots(store: Store): Snapshots {
  let s = byStore.get(store);
  if (s === undefined) {
    s = new Snapshots(store);
    byStore.set(store, s);
  }
  return s;
}
