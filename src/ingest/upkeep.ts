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

/** Compaction works through each rollup in slices of this many quarter-hours (a day, 30 days, a year), each its own transaction. */
const COMPACTION_SLICE_QUARTERS: Record<string, number> = { rollup_15m: 96, rollup_1d: 30 * 96, rollup_1mo: 366 * 96 };

/**
 * Compaction: rollup rows of loads committed more than a cursor lifetime ago
 * are merged into one row per key (tagged with the horizon), attribution rows
 * that ended by then are deleted, and the database is checkpointed (the WAL
 * written into the file, deleted rows vacuumed). Every cursor still valid
 * reads at or after the horizon, so it sees the same sums.
 *
 * The horizon is recorded first, so older cursors are refused before any row
 * moves; then each rollup is merged in slices of buckets, each in its own
 * transaction. A slice keeps every sum at or after the horizon, so readers
 * see the same numbers between slices, and an interrupted run is finished by
 * the next. One transaction over a whole rollup ran out of a 1GB memory
 * limit on a store of 50M events.
 */
export async function compactStore(deps: { store: Store; clock: Clock }): Promise<{ horizon: number; merged: number }> {
  const cutoff = deps.clock.nowMs() - CURSOR_LIFETIME_MS;
  const horizon = Number((await deps.store.get('SELECT coalesce(max(seq), 0) AS h FROM data_loads WHERE committed_at_ms < $cutoff', { cutoff }))?.['h'] ?? 0);
  if (horizon === 0) return { horizon, merged: 0 };
  await deps.store.run('INSERT INTO data_compactions VALUES ($h, $now)', { h: horizon, now: deps.clock.nowMs() });
  const keys = ROLLUP_KEYS.join(', ');
  // The merged rows are summed as scratch before each slice's transaction, on the writer's own connection.
  const merged = await deps.store.writerSession(async (session) => {
    let n = 0;
    for (const table of ROLLUP_TABLES) {
      const step = COMPACTION_SLICE_QUARTERS[table] ?? 96;
      const span = await session.get(`SELECT min(bucket) AS lo, max(bucket) AS hi FROM ${table} WHERE load_seq <= $h`, { h: horizon });
      if (span?.['lo'] === null || span?.['lo'] === undefined) continue;
      for (let lo = Number(span['lo']); lo <= Number(span['hi']); lo += step) {
        const slice = { h: horizon, lo, hi: lo + step };
        try {
          await session.run(
            `CREATE TEMP TABLE compact_rollup AS
             SELECT ${keys}, sum(impressions)::BIGINT AS impressions, sum(clicks)::BIGINT AS clicks, sum(spend_micros)::BIGINT AS spend_micros, $h::BIGINT AS load_seq
             FROM ${table} WHERE load_seq <= $h AND bucket >= $lo AND bucket < $hi GROUP BY ALL HAVING count(*) > 1`,
            slice,
          );
          const rows = Number((await session.get('SELECT count(*) AS n FROM compact_rollup'))?.['n'] ?? 0);
          if (rows === 0) continue;
          await session.transaction(async (tx) => {
            await tx.run(
              `DELETE FROM ${table} r USING compact_rollup c
               WHERE r.load_seq <= $h AND r.bucket >= $lo AND r.bucket < $hi AND ${ROLLUP_KEYS.map((k) => `r.${k} IS NOT DISTINCT FROM c.${k}`).join(' AND ')}`,
              slice,
            );
            await tx.run(`INSERT INTO ${table} SELECT * FROM compact_rollup ORDER BY segment, bucket`);
          });
          n += rows;
        } finally {
          await session.run('DROP TABLE IF EXISTS compact_rollup');
        }
      }
    }
    return n;
  });
  await deps.store.run('DELETE FROM attributions WHERE valid_to <= $h', { h: horizon });
  await deps.store.run('CHECKPOINT');
  return { horizon, merged };
}
