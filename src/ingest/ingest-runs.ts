import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors/api-error.js';
import { newId } from '../ids.js';
import { listPage, toListEnvelope, type ListEnvelope, type ListParams } from '../store/list-page.js';
import { sqlList, type Queryable, type Row, type Store } from '../store/store.js';
import { recordReachedSpendLimits, recordRunCompleted } from '../domain/webhooks/webhook-outbox.js';
import { formatOf, QUARANTINE_REASONS, type EventFileFormat } from './event-contract.js';
import { issueOf, loadEventFile, type CheckedIssue, type LoadSummary } from './load-events.js';

/**
 * Ingest runs (issue: event pipeline, item 1): a run names files, each loaded
 * in its own transaction together with its `done` mark, so processing a run
 * again (a job retry, a restart after kill -9) resumes where it stopped and
 * never stores an event twice.
 */
export const RUN_PREFIX = 'irun_';
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export interface RunFile {
  path: string;
  format: EventFileFormat;
  source: string;
}

interface Deps {
  store: Store;
  clock: Clock;
  /** Lines per chunk transaction (default: the loader's). */
  ingestChunkLines?: number;
  /** At most this many queued `POST /v1/events` runs of one account are loaded together (default 1: each alone). */
  ingestBatchRuns?: number;
}

const RunRow = z.object({
  id: z.string(),
  ad_account_id: z.string().nullable(),
  origin: z.string(),
  status: z.enum(RUN_STATUSES),
  error: z.string().nullable(),
  created_at_ms: z.number(),
  started_at_ms: z.number().nullable(),
  finished_at_ms: z.number().nullable(),
});
const FileRow = z.object({
  file_index: z.number(),
  path: z.string(),
  format: z.enum(['ndjson', 'csv', 'parquet']),
  source: z.string(),
  done: z.boolean(),
  rows_read: z.number(),
  stored: z.number(),
  duplicates: z.number(),
  quarantined: z.number(),
  quarantined_by_reason: z.string().transform((s) => z.partialRecord(z.enum(QUARANTINE_REASONS), z.number()).parse(JSON.parse(s))),
  lines_done: z.number().nullable(),
});

/** Files named on the command line: absolute, existing, of a known format. */
export function describeFiles(paths: readonly string[]): RunFile[] {
  return paths.map((path, i) => {
    const param = `files[${i}]`;
    if (!isAbsolute(path)) throw new ApiError('invalid_value', `${path} is not an absolute path.`, { param });
    if (!existsSync(path) || !statSync(path).isFile()) throw new ApiError('invalid_value', `${path} does not exist or is not a file.`, { param });
    const format = formatOf(path);
    if (!format) throw new ApiError('invalid_value', `${path}: the format is chosen by the extension (.ndjson, .jsonl, .csv, optionally .gz, or .parquet).`, { param });
    return { path, format, source: path };
  });
}

export async function createRun(deps: Deps, req: { accountId: string | null; origin: 'cli' | 'api'; files: RunFile[] }): Promise<string> {
  const id = newId(RUN_PREFIX);
  await deps.store.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO ingest_runs (id, ad_account_id, origin, status, error, created_at_ms, started_at_ms, finished_at_ms, seq)
       VALUES ($id, $account, $origin, $status, NULL, $now, NULL, NULL, nextval('ingest_runs_seq'))`,
      {
        id,
        account: req.accountId,
        origin: req.origin,
        status: 'queued',
        now: deps.clock.nowMs(),
      },
    );
    for (const [i, f] of req.files.entries()) {
      await tx.run("INSERT INTO ingest_run_files VALUES ($run, $i, $path, $format, $source, false, 0, 0, 0, 0, '{}', 0)", {
        run: id,
        i,
        path: f.path,
        format: f.format,
        source: f.source,
      });
    }
  });
  return id;
}

async function readRun(store: Store, runId: string) {
  const run = await store.get('SELECT * FROM ingest_runs WHERE id = $id', { id: runId });
  if (!run) return undefined;
  const files = (await store.all('SELECT * FROM ingest_run_files WHERE run_id = $id ORDER BY file_index', { id: runId })).map((r: Row) => FileRow.parse(r));
  return { run: RunRow.parse(run), files };
}

/**
 * Does the work of a run; safe to call again for the same run at any point.
 * A load that fails for want of memory or disk is tried again at once (its
 * committed chunks are kept), up to `RESOURCE_ATTEMPTS` times; if it still
 * fails, the error is thrown and the run stays open, never marked failed:
 * nothing is wrong with its events. DuckDB's memory limit is not a hard
 * ceiling for every operator, and a 10M-event load into a 20M-event store
 * at the default 1GB once failed to pin a block, then loaded on a re-run.
 */
export async function processRun(deps: Deps, runId: string): Promise<RunStatus | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await processRunOnce(deps, runId);
    } catch (err) {
      if (!isResourceError(err) || attempt >= RESOURCE_ATTEMPTS) throw err;
    }
  }
}

const RESOURCE_ATTEMPTS = 3;

/** DuckDB ran out of memory or of disk: the same work may well succeed when tried again. */
export function isResourceError(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return /Out of Memory Error|No space left on device|failed to (pin|allocate)/i.test(message);
}

async function processRunOnce(deps: Deps, runId: string): Promise<RunStatus | undefined> {
  const state = await readRun(deps.store, runId);
  if (!state) return undefined;
  if (state.run.status === 'succeeded' || state.run.status === 'failed') return state.run.status;
  if ((deps.ingestBatchRuns ?? 1) > 1) {
    const batched = await processBatch(deps, state.run);
    if (batched !== undefined) return batched;
  }
  await deps.store.run("UPDATE ingest_runs SET status = 'running', started_at_ms = coalesce(started_at_ms, $now) WHERE id = $id", { id: runId, now: deps.clock.nowMs() });
  for (const f of state.files.filter((x) => !x.done)) {
    // Days whose spend this load records are checked against spend limits before it commits.
    const loadStartedMs = deps.clock.nowMs();
    try {
      // Chunks an earlier attempt committed are not loaded again; their counts are kept.
      const linesDone = f.lines_done;
      const counts = { rows_read: f.rows_read, stored: f.stored, duplicates: f.duplicates, quarantined: f.quarantined, quarantined_by_reason: f.quarantined_by_reason };
      await loadEventFile(
        deps,
        { runId, path: f.path, format: f.format, source: f.source, scopeAccountId: state.run.ad_account_id },
        {
          ...(deps.ingestChunkLines !== undefined ? { chunkLines: deps.ingestChunkLines } : {}),
          ...(linesDone !== null && linesDone > 0 ? { resume: { linesDone, summary: counts } } : {}),
          beforeCommit: async (tx, s: LoadSummary, progress) => {
            await recordFileProgress(tx, { runId, fileIndex: f.file_index, ...progress }, s);
            await recordReachedSpendLimits(tx, deps.clock, loadStartedMs);
          },
        },
      );
    } catch (err) {
      // The machine's fault, not the file's: the run stays open and is tried again (the job's retries, the reconciler, the next CLI call).
      if (isResourceError(err)) throw err;
      // A file that cannot be read as its format fails the run, with the reader's words.
      const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
      await finishRuns(deps, [state.run], 'failed', `${f.source}: ${message}`);
      return 'failed';
    }
  }
  await finishRuns(deps, [state.run], 'succeeded', null);
  return 'succeeded';
}

/** A file's counts and where its load stands, committed with the lines they count. */
async function recordFileProgress(tx: Queryable, at: { runId: string; fileIndex: number; linesDone: number; done: boolean }, s: LoadSummary): Promise<void> {
  await tx.run(
    `UPDATE ingest_run_files SET done = $done, lines_done = $lines_done, rows_read = $rows_read, stored = $stored, duplicates = $duplicates,
       quarantined = $quarantined, quarantined_by_reason = $by_reason WHERE run_id = $run AND file_index = $i`,
    {
      run: at.runId,
      i: at.fileIndex,
      done: at.done,
      lines_done: at.linesDone,
      rows_read: s.rows_read,
      stored: s.stored,
      duplicates: s.duplicates,
      quarantined: s.quarantined,
      by_reason: JSON.stringify(s.quarantined_by_reason),
    },
  );
}

/** Ends runs: each run's end and its ingest_run.completed event commit together. */
async function finishRuns(deps: Deps, runs: readonly Pick<z.infer<typeof RunRow>, 'id' | 'ad_account_id'>[], status: 'succeeded' | 'failed', error: string | null): Promise<void> {
  await deps.store.transaction(async (tx) => {
    for (const run of runs) {
      await tx.run('UPDATE ingest_runs SET status = $status, error = $error, finished_at_ms = $now WHERE id = $id', { id: run.id, status, error, now: deps.clock.nowMs() });
      await recordRunCompleted(tx, deps.clock, { id: run.id, accountId: run.ad_account_id });
    }
  });
}

/**
 * Loads an API run together with the account's other waiting API runs
 * (queued, or left running by a crash before any of their lines committed:
 * the one worker is the only writer), in the order they were made, as one
 * batch in one transaction: each run's counts,
 * quarantined rows and stored events are exactly those of loading the runs
 * one after another (load-events.ts, `more`), and all of them commit or
 * none does. Undefined when there is nothing to batch, or when the batch
 * cannot be read: then each run is loaded alone, so a file that fails
 * fails its own run only.
 */
async function processBatch(deps: Deps, run: z.infer<typeof RunRow>): Promise<RunStatus | undefined> {
  if (run.origin !== 'api' || run.ad_account_id === null) return undefined;
  const rows = await deps.store.all(
    // Runs that may join a batch: waiting, each with one NDJSON file (a `POST /v1/events` body) not begun; this run first.
    `SELECT r.id, r.seq, f.path, f.source FROM ingest_runs r JOIN ingest_run_files f ON f.run_id = r.id
     WHERE r.status IN ('queued', 'running') AND r.origin = 'api' AND r.ad_account_id = $account AND f.format = 'ndjson' AND NOT f.done
       AND coalesce(f.lines_done, 0) = 0 AND (SELECT count(*) FROM ingest_run_files g WHERE g.run_id = r.id) = 1
     ORDER BY r.id = $id DESC, r.seq LIMIT $n`,
    { id: run.id, account: run.ad_account_id, n: deps.ingestBatchRuns ?? 1 },
  );
  // This run itself is not one (a file already begun, or several): it loads alone.
  if (rows[0]?.['id'] !== run.id) return undefined;
  // A batch file already gone is left to its own run, which fails with the reader's words.
  const parts = rows
    .map((r) => ({ runId: String(r['id']), seq: Number(r['seq']), path: String(r['path']), source: String(r['source']) }))
    .filter((p) => p.runId === run.id || existsSync(p.path))
    .sort((a, b) => a.seq - b.seq);
  const [first, ...more] = parts;
  if (first === undefined || more.length === 0) return undefined;
  const ids = sqlList(parts.map((p) => p.runId));
  await deps.store.run("UPDATE ingest_runs SET status = 'running', started_at_ms = coalesce(started_at_ms, $now) WHERE list_contains($ids, id)", { ids, now: deps.clock.nowMs() });
  const loadStartedMs = deps.clock.nowMs();
  try {
    await loadEventFile(deps, { ...first, format: 'ndjson', scopeAccountId: run.ad_account_id, more }, {
      beforeCommit: async (tx, _all, _progress, done) => {
        for (const p of done) await recordFileProgress(tx, { runId: p.runId, fileIndex: 0, linesDone: p.lines, done: true }, p.summary);
        await recordReachedSpendLimits(tx, deps.clock, loadStartedMs);
      },
    });
  } catch (err) {
    if (isResourceError(err)) throw err;
    // Nothing of the batch was stored: the others wait for their own jobs, as queued as they were.
    await deps.store.run("UPDATE ingest_runs SET status = 'queued', started_at_ms = NULL WHERE list_contains($ids, id) AND id <> $id", { ids, id: run.id });
    return undefined;
  }
  await finishRuns(deps, parts.map((p) => ({ id: p.runId, ad_account_id: run.ad_account_id })), 'succeeded', null);
  return 'succeeded';
}

export interface IngestRun {
  id: string;
  object: 'ingest_run';
  status: RunStatus;
  origin: string;
  ad_account_id: string | null;
  /** Per file; `lines_done`: the last line of the file loaded so far (a large file commits in chunks, with its counts so far). */
  files: { source: string; format: EventFileFormat; done: boolean; lines_done: number; rows_read: number; stored: number; duplicates: number; quarantined: number }[];
  rows_read: number;
  stored: number;
  duplicates: number;
  quarantined: number;
  quarantined_by_reason: Record<string, number>;
  error: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  duration_ms: number | null;
}

/** A run as clients read it; with `accountId`, only that account's runs exist (404 otherwise). */
export async function getRun(deps: Pick<Deps, 'store'>, runId: string, accountId: string | null): Promise<IngestRun> {
  const state = await readRun(deps.store, runId);
  if (!state || (accountId !== null && state.run.ad_account_id !== accountId)) throw ApiError.notFound('ingest run', runId);
  return runObject(state.run, state.files);
}

/** GET /v1/ingest_runs: the account's runs, newest first by default, paged like every list; `status` narrows them. */
export async function listRuns(deps: Pick<Deps, 'store'>, accountId: string, params: ListParams & { status?: RunStatus | undefined }): Promise<ListEnvelope<IngestRun>> {
  const { rows, hasMore } = await listPage(deps.store, 'ingest_runs', accountId, params, { status: params.status });
  const runs = rows.map((r) => RunRow.parse(r));
  const files = new Map<string, z.infer<typeof FileRow>[]>(runs.map((r) => [r.id, []]));
  if (runs.length > 0) {
    for (const r of await deps.store.all('SELECT * FROM ingest_run_files WHERE list_contains($ids, run_id) ORDER BY run_id, file_index', { ids: sqlList(runs.map((x) => x.id)) })) {
      files.get(String(r['run_id']))?.push(FileRow.parse(r));
    }
  }
  return toListEnvelope(
    runs.map((r) => runObject(r, files.get(r.id) ?? [])),
    hasMore,
  );
}

/** A run and its files as the API shows them. */
function runObject(run: z.infer<typeof RunRow>, files: z.infer<typeof FileRow>[]): IngestRun {
  const sum = (k: 'rows_read' | 'stored' | 'duplicates' | 'quarantined') => files.reduce((n, f) => n + f[k], 0);
  const byReason: Record<string, number> = {};
  for (const f of files) for (const [r, n] of Object.entries(f.quarantined_by_reason)) byReason[r] = (byReason[r] ?? 0) + (n ?? 0);
  const secs = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));
  return {
    id: run.id,
    object: 'ingest_run',
    status: run.status,
    origin: run.origin,
    ad_account_id: run.ad_account_id,
    files: files.map((f) => ({ source: f.source, format: f.format, done: f.done, lines_done: f.lines_done ?? 0, rows_read: f.rows_read, stored: f.stored, duplicates: f.duplicates, quarantined: f.quarantined })),
    rows_read: sum('rows_read'),
    stored: sum('stored'),
    duplicates: sum('duplicates'),
    quarantined: sum('quarantined'),
    quarantined_by_reason: byReason,
    error: run.error,
    created_at: Math.floor(run.created_at_ms / 1000),
    started_at: secs(run.started_at_ms),
    finished_at: secs(run.finished_at_ms),
    duration_ms: run.started_at_ms !== null && run.finished_at_ms !== null ? run.finished_at_ms - run.started_at_ms : null,
  };
}

/** A stored quarantined row; `detail` is null for rows quarantined before 0015_quarantine_detail.sql. */
export interface QuarantinedRow extends CheckedIssue {
  source: string;
}

/** The quarantined rows of a run in line order, `limit` from after a line of a source. */
export async function listQuarantine(
  deps: Pick<Deps, 'store'>,
  runId: string,
  accountId: string | null,
  page: { limit: number; after_line?: number | undefined },
): Promise<{ object: 'list'; data: QuarantinedRow[]; has_more: boolean }> {
  await getRun(deps, runId, accountId);
  const rows = await deps.store.all(
    'SELECT source, line_no, reason, detail, raw FROM event_quarantine WHERE run_id = $run AND line_no > $after ORDER BY line_no, source LIMIT $limit',
    { run: runId, after: page.after_line ?? 0, limit: page.limit + 1 },
  );
  const data = rows.slice(0, page.limit).map((r) => ({ source: String(r['source']), ...issueOf(r) }));
  return { object: 'list', data, has_more: rows.length > page.limit };
}

export async function pendingRunIds(store: Store): Promise<string[]> {
  return (await store.all("SELECT id FROM ingest_runs WHERE status IN ('queued', 'running') ORDER BY created_at_ms")).map((r) => String(r['id']));
}

/** Queues the processing of a run; implemented over BullMQ in jobs/. */
export interface IngestScheduler {
  schedule(runId: string): Promise<void>;
}
