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

/** Writes the WAL into the database file and vacuums deleted rows (waits for running writes). */
export async function compactStore(store: Store): Promise<void> {
  await store.run('CHECKPOINT');
}
