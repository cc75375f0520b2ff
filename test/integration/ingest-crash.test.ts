import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { sendAdminCommand } from '../../src/admin/admin-client.js';
import { adminSocketPath, databasePath } from '../../src/admin/socket-path.js';
import { bearer, deleteRedisPrefix, redisUrl, tempDir, uniquePrefix } from '../support/context.js';
import { runCli, startServe } from '../support/processes.js';

/**
 * Exactly once across kill -9: a run is interrupted by killing serve in the
 * middle of a file (files load in chunks of 15,000 lines here, each committed
 * on its own), serve starts again, the reconciler queues the run, and the
 * tables and the run's counts end exactly as an uninterrupted load of the
 * same files leaves them.
 */
const FILES = 6;
const BASE = Date.now() - 3_600_000;
const PER_FILE = 60_000;

function writeFiles(dir: string, accountId: string): string[] {
  const paths: string[] = [];
  for (let f = 0; f < FILES; f++) {
    const lines: string[] = [];
    for (let i = 0; i < PER_FILE; i++) {
      // Every file repeats 100 events of the previous one: duplicates across files.
      const n = f * PER_FILE + i - (f > 0 && i < 100 ? 100 : 0);
      lines.push(JSON.stringify({ event_id: `k${n}`, type: 'conversion', timestamp: BASE - n, user_id: `u${n % 977}`, ad_account_id: accountId, event_name: 'lead_created' }));
    }
    const path = join(dir, `part-${f}.ndjson`);
    writeFileSync(path, lines.join('\n') + '\n');
    paths.push(path);
  }
  return paths;
}

async function tableDigest(dataDir: string): Promise<unknown> {
  const conn = await (await DuckDBInstance.create(databasePath(dataDir))).connect();
  try {
    return (await conn.runAndReadAll('SELECT count(*) AS n, count(DISTINCT event_id) AS ids, sum(hash(event_id, ts_us, user_id)) AS h FROM events')).getRowObjectsJson();
  } finally {
    conn.closeSync();
  }
}

describe('kill -9 during a run', () => {
  const dirs = [tempDir(), tempDir()];
  const prefixes = [uniquePrefix(), uniquePrefix()];
  afterAll(async () => {
    for (const p of prefixes) await deleteRedisPrefix(redisUrl(), p);
    for (const d of dirs) d.cleanup();
  });

  it('ends with the same tables as an uninterrupted run', { timeout: 240_000 }, async () => {
    const [crashDir, cleanDir] = dirs as [ReturnType<typeof tempDir>, ReturnType<typeof tempDir>];
    const envOf = (dir: string, prefix: string) => ({ ADSVC_DATA_DIR: dir, REDIS_URL: redisUrl(), ADSVC_QUEUE_PREFIX: prefix, ADSVC_INGEST_CHUNK_LINES: '15000' });
    const crashEnv = envOf(crashDir.path, prefixes[0] as string);
    const cleanEnv = envOf(cleanDir.path, prefixes[1] as string);
    // The same account id in both data dirs is not needed: conversions name their account.
    const create = async (env: Record<string, string>) =>
      JSON.parse((await runCli(['accounts', 'create', '--name', 'Crash', '--url', 'https://c.example', '--timezone', 'UTC', '--currency', 'USD', '--json'], env)).stdout).account.id as string;

    // Uninterrupted reference, loaded by the CLI itself.
    const cleanAccount = await create(cleanEnv);
    const cleanRun = await runCli(['ingest', ...writeFiles(cleanDir.path, cleanAccount), '--json'], cleanEnv);
    expect(JSON.parse(cleanRun.stdout)).toMatchObject({ status: 'succeeded', stored: FILES * PER_FILE - (FILES - 1) * 100 });

    // Interrupted: queue the run in a serve, kill it -9 part-way, start again.
    const crashAccount = await create(crashEnv);
    let serve = await startServe([], crashEnv);
    const queued = JSON.parse((await runCli(['ingest', ...writeFiles(crashDir.path, crashAccount), '--no-wait', '--json'], crashEnv)).stdout);
    // Watch progress through the admin socket (fast), and kill as soon as a file is partly loaded past its first file.
    let partly = false;
    const deadline = Date.now() + 60_000;
    while (!partly && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      const files = (await readRun(crashDir.path, queued.id))?.files ?? [];
      partly = files.some((f, i) => i > 0 && !f.done && f.lines_done > 0);
    }
    expect(partly).toBe(true);
    expect(await serve.stop('SIGKILL')).toBeNull();
    serve = await startServe([], crashEnv);
    let status = 'running';
    const deadline2 = Date.now() + 120_000;
    while (status !== 'succeeded' && Date.now() < deadline2) {
      await new Promise((r) => setTimeout(r, 300));
      status = await runStatus(crashDir.path, queued.id);
    }
    expect(status).toBe('succeeded');
    const report = (await readRun(crashDir.path, queued.id)) as unknown as { rows_read: number; stored: number; duplicates: number; quarantined: number };
    await serve.stop();
    const [crashed, clean] = [await tableDigest(crashDir.path), await tableDigest(cleanDir.path)];
    expect(crashed).toEqual(clean);
    const counts = (r: { rows_read: number; stored: number; duplicates: number; quarantined: number }) => ({ rows_read: r.rows_read, stored: r.stored, duplicates: r.duplicates, quarantined: r.quarantined });
    expect(counts(report)).toEqual(counts(JSON.parse(cleanRun.stdout)));
  });
});

describe('kill -9 while queued POST /v1/events runs load together', () => {
  const dir = tempDir();
  const prefix = uniquePrefix();
  afterAll(async () => {
    await deleteRedisPrefix(redisUrl(), prefix);
    dir.cleanup();
  });

  it('stores every accepted event once, and each run ends with the counts of a load of its own', { timeout: 240_000 }, async () => {
    const BODIES = 24;
    const PER_BODY = 10_000;
    // Batches of four, so the burst is several loads and the kill finds some still to do.
    const env = { ADSVC_DATA_DIR: dir.path, REDIS_URL: redisUrl(), ADSVC_QUEUE_PREFIX: prefix, ADSVC_INGEST_BATCH_RUNS: '4' };
    const made = JSON.parse((await runCli(['accounts', 'create', '--name', 'Burst', '--url', 'https://b.example', '--timezone', 'UTC', '--currency', 'USD', '--json'], env)).stdout);
    const headers = { ...bearer(made.api_key.key as string) };
    let serve = await startServe([], env);
    // All at once, as a burst; each body holds its own events, the first 100 of them twice, so the counts do not depend on the order the runs were made in.
    const bodies = Array.from({ length: BODIES }, (_, b) =>
      Array.from({ length: PER_BODY }, (_, i) => {
        const n = b * PER_BODY + (i < PER_BODY - 100 ? i : i - (PER_BODY - 100));
        return JSON.stringify({ event_id: `p${n}`, type: 'conversion', timestamp: BASE - n, user_id: `u${n % 977}`, event_name: 'lead_created' });
      }).join('\n'),
    );
    const url = serve.url;
    const ids = await Promise.all(
      bodies.map(async (body) => {
        const res = await fetch(`${url}/v1/events`, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-ndjson' }, body });
        expect(res.status).toBe(202);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    const runs = async (url: string) =>
      ((await (await fetch(`${url}/v1/ingest_runs?limit=100`, { headers })).json()) as { data: { id: string; status: string; stored: number; duplicates: number }[] }).data;
    // Killed while a batch is loading.
    let seen = await runs(serve.url);
    const deadline = Date.now() + 60_000;
    while (!seen.some((r) => r.status === 'running') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      seen = await runs(serve.url);
    }
    expect(await serve.stop('SIGKILL')).toBeNull();
    expect(seen.filter((r) => r.status === 'running').length).toBeGreaterThan(0);
    serve = await startServe([], env);
    const deadline2 = Date.now() + 120_000;
    while (!(seen.length === BODIES && seen.every((r) => r.status === 'succeeded')) && Date.now() < deadline2) {
      await new Promise((r) => setTimeout(r, 300));
      seen = await runs(serve.url);
    }
    await serve.stop();
    const byId = new Map(seen.map((r) => [r.id, r]));
    expect(ids.map((id) => [byId.get(id)?.status, byId.get(id)?.stored, byId.get(id)?.duplicates])).toEqual(ids.map(() => ['succeeded', PER_BODY - 100, 100]));
    // Each event once, under the run whose body held it.
    const conn = await (await DuckDBInstance.create(databasePath(dir.path))).connect();
    try {
      const rows = (await conn.runAndReadAll('SELECT run_id, count(*)::INTEGER AS n, count(DISTINCT event_id)::INTEGER AS ids FROM events GROUP BY run_id')).getRowObjectsJson();
      expect(new Map(rows.map((r) => [r['run_id'], [r['n'], r['ids']]]))).toEqual(new Map(ids.map((id) => [id, [PER_BODY - 100, PER_BODY - 100]])));
    } finally {
      conn.closeSync();
    }
  });
});

async function readRun(dataDir: string, runId: string): Promise<{ status: string; files: { done: boolean; lines_done: number }[] } | undefined> {
  const reply = await sendAdminCommand(adminSocketPath(dataDir), 'ingest.get', { run: runId }).catch(() => ({ reached: false as const }));
  return reply.reached ? (reply.result as { status: string; files: { done: boolean; lines_done: number }[] }) : undefined;
}

async function runStatus(dataDir: string, runId: string): Promise<string> {
  return (await readRun(dataDir, runId))?.status ?? 'unknown';
}
