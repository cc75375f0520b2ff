import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Store } from '../store/store.js';

/**
 * Periodic upkeep of the event pipeline, run by maintenance jobs:
 * - retention: batch files of `POST /v1/events` are removed once their run
 *   succeeded (the events are in DuckDB), or some days after it failed; files
 *   no run refers to (a request cut off between writing its batch and
 *   recording its run) after an hour; quarantined rows after their retention.
 * - compaction: a DuckDB checkpoint, which writes the WAL into the file and
 *   reclaims the space of rows that incremental refreshes deleted.
 * Every task is idempotent.
 */
export interface UpkeepDeps {
  store: Store;
  clock: Clock;
  dataDir: string;
  quarantineRetentionDays: number;
  failedBatchRetentionDays: number;
}

const DAY_MS = 86_400_000;
/** A batch file no run refers to is left alone this long: its request may still be recording the run. */
export const ORPHAN_BATCH_GRACE_MS = 3_600_000;

export const batchDir = (dataDir: string): string => join(dataDir, 'ingest');

const BatchRow = z.object({ path: z.string(), status: z.string(), finished_at_ms: z.union([z.number(), z.bigint()]).nullable() });

export interface RetentionResult {
  batches_removed: number;
  quarantine_rows_removed: number;
}

export async function applyRetention(deps: UpkeepDeps): Promise<RetentionResult> {
  const now = deps.clock.nowMs();
  const dir = batchDir(deps.dataDir);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.startsWith('batch-'));
  } catch {
    names = [];
  }
  const runs = new Map<string, z.infer<typeof BatchRow>>();
  if (names.length > 0) {
    const rows = await deps.store.all(
      `SELECT f.path, r.status, r.finished_at_ms FROM ingest_run_files f JOIN ingest_runs r ON r.id = f.run_id
       WHERE r.origin = 'api' AND starts_with(f.path, $dir)`,
      { dir: dir + '/' },
    );
    for (const r of rows) {
      const row = BatchRow.parse(r);
      runs.set(row.path, row);
    }
  }
  let removed = 0;
  for (const name of names) {
    const path = join(dir, name);
    const run = runs.get(path);
    let expired: boolean;
    if (run === undefined) {
      const info = await stat(path).catch(() => undefined);
      expired = info !== undefined && now - info.mtimeMs > ORPHAN_BATCH_GRACE_MS;
    } else if (run.status === 'succeeded') {
      expired = true;
    } else {
      expired = run.status === 'failed' && run.finished_at_ms !== null && now - Number(run.finished_at_ms) > deps.failedBatchRetentionDays * DAY_MS;
    }
    if (expired) {
      await rm(path, { force: true });
      removed++;
    }
  }
  const cutoff = now - deps.quarantineRetentionDays * DAY_MS;
  const counted = await deps.store.transaction(async (db) => {
    const n = await db.get(
      `SELECT count(*) AS n FROM event_quarantine q JOIN ingest_runs r ON r.id = q.run_id WHERE r.finished_at_ms < $cutoff`,
      { cutoff },
    );
    await db.run(`DELETE FROM event_quarantine WHERE run_id IN (SELECT id FROM ingest_runs WHERE finished_at_ms < $cutoff)`, { cutoff });
    return Number(n?.['n'] ?? 0);
  });
  return { batches_removed: removed, quarantine_rows_removed: counted };
}

/** How long a cursor reads the data as of its first page; compaction keeps the history this long. */
export const CURSOR_LIFETIME_MS = 24 * 3_600_000;

/** The rollups, finest first (0007 and 0010). */
const ROLLUP_TABLES = ['rollup_15m', 'rollup_1d', 'rollup_1mo'];
const ROLLUP_KEYS = ['ad_account_id', 'bucket', 'campaign_id', 'ad_group_id', 'ad_id', 'segment', 'segment_value', 'feed_value', 'item_value'];
/**
 * The order compaction writes a slice in: each segment's rows by campaign, ad
 * group and ad. A report scoped to or filtered by a few campaigns or one ad
 * group then reads the few row groups that hold them (DuckDB skips the
 * others by their min/max). On the 50M-event bench store this took an ad
 * group's hourly week from 33 to 11 ms, and a year by ad and country for
 * three campaigns from 43 to 24 ms, against merging only keys with several
 * rows in place.
 */
const CLUSTER_ORDER = ['ad_account_id', 'segment', 'campaign_id', 'ad_group_id', 'ad_id', 'segment_value', 'feed_value', 'item_value', 'bucket'];

/**
 * Compaction works through each rollup in slices of this many quarter-hours
 * (a week, 30 days, 92 days; slice k holds buckets k * step to (k + 1) *
 * step), each its own transaction. A slice is a few million rows at most on
 * the bench store: sorted within the memory limit, long enough that one ad
 * group's rows in it are a row group or two, and short enough that the
 * slices new loads reach (mostly the latest of each rollup) are quick to
 * rewrite.
 */
const COMPACTION_SLICE_QUARTERS: Record<string, number> = { rollup_15m: 7 * 96, rollup_1d: 30 * 96, rollup_1mo: 92 * 96 };

/**
 * Compaction: rollup rows of loads committed more than a cursor lifetime ago
 * are merged into one row per key (tagged load 0, like rows from before load
 * sequences: every reader still served reads at or after the horizon, so
 * merged history is in every read), attribution rows
 * that ended by then are deleted, and the database is checkpointed (the WAL
 * written into the file, deleted rows vacuumed). Every cursor still valid
 * reads at or after the horizon, so it sees the same sums.
 *
 * The horizon is recorded first, so older cursors are refused before any row
 * moves; then each rollup is rewritten in slices of buckets, each in its own
 * transaction: the slice's rows up to the horizon are replaced by their sums
 * per key, in `CLUSTER_ORDER`. Only slices with rows of loads not yet
 * compacted are rewritten (new data mostly falls in the last days). A slice
 * keeps every sum at or after the horizon, so readers see the same numbers
 * between slices, and an interrupted run is finished by the next. Loads
 * commit between slices (theirs are rows past the horizon, which no slice
 * touches), and two compactions may overlap: the sums of a slice's rows up
 * to a horizon are the same before and after another rewrote it. One
 * transaction over a whole rollup ran out of a 1GB memory limit on a store
 * of 50M events.
 */
export async function compactStore(deps: { store: Store; clock: Clock }): Promise<{ horizon: number; merged: number }> {
  const cutoff = deps.clock.nowMs() - CURSOR_LIFETIME_MS;
  const horizon = Number((await deps.store.get('SELECT coalesce(max(seq), 0) AS h FROM data_loads WHERE committed_at_ms < $cutoff', { cutoff }))?.['h'] ?? 0);
  if (horizon === 0) return { horizon, merged: 0 };
  await deps.store.run('INSERT INTO data_compactions VALUES ($h, $now)', { h: horizon, now: deps.clock.nowMs() });
  const keys = ROLLUP_KEYS.join(', ');
  let merged = 0;
  for (const table of ROLLUP_TABLES) {
    const step = COMPACTION_SLICE_QUARTERS[table] ?? 96;
    // Slices with rows of loads up to the horizon; merged rows carry load_seq 0.
    const slices = await deps.store.all(`SELECT DISTINCT bucket // $step AS k FROM ${table} WHERE load_seq > 0 AND load_seq <= $h ORDER BY 1`, { h: horizon, step });
    for (const row of slices) {
      const lo = Number(row['k']) * step;
      const slice = { h: horizon, lo, hi: lo + step };
      // One slice at a time holds the writer, so loads wait for a slice, not for the whole compaction. The slice's
      // sums are staged as scratch on the writer's connection before its transaction; no load commits in between,
      // so the delete removes exactly the rows summed. (Loads between slices add rows past the horizon only.)
      merged += await deps.store.writerSession(async (session) => {
        try {
          await session.run(
            `CREATE TEMP TABLE compact_rollup AS
             SELECT ${keys}, sum(impressions)::BIGINT AS impressions, sum(clicks)::BIGINT AS clicks, sum(spend_micros)::BIGINT AS spend_micros, 0::BIGINT AS load_seq
             FROM ${table} WHERE load_seq <= $h AND bucket >= $lo AND bucket < $hi GROUP BY ALL
             ORDER BY ${CLUSTER_ORDER.join(', ')}`,
            slice,
          );
          await session.transaction(async (tx) => {
            await tx.run(`DELETE FROM ${table} WHERE load_seq <= $h AND bucket >= $lo AND bucket < $hi`, slice);
            await tx.run(`INSERT INTO ${table} SELECT * FROM compact_rollup`);
          });
          return Number((await session.get('SELECT count(*) AS n FROM compact_rollup'))?.['n'] ?? 0);
        } finally {
          await session.run('DROP TABLE IF EXISTS compact_rollup');
        }
      });
    }
  }
  await deps.store.run('DELETE FROM attributions WHERE valid_to <= $h', { h: horizon });
  await deps.store.run('CHECKPOINT');
  return { horizon, merged };
}
