import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../src/admin/commands.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startService } from '../src/runtime/service.js';

/**
 * `npm run bench [-- http] [--seconds N] [--connections N]`
 *
 * Suites (more arrive with the engine): `http` measures the request path that
 * every endpoint shares (routing, key auth against DuckDB, JSON) with
 * GET /v1/ad_account over keep-alive loopback connections.
 * Data lives in a temp dir and is removed afterwards.
 */
interface Args {
  suites: string[];
  seconds: number;
  connections: number;
  events: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { suites: [], seconds: 10, connections: 16, events: 1_000_000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--seconds') args.seconds = Number(argv[++i]);
    else if (a === '--connections') args.connections = Number(argv[++i]);
    else if (a === '--events') args.events = Number(argv[++i]);
    else args.suites.push(a);
  }
  if (args.suites.length === 0) args.suites = ['http'];
  return args;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function httpSuite(args: Args): Promise<Record<string, string>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'adsvc-bench-'));
  const env: Record<string, string | undefined> = { ...process.env, ADSVC_DATA_DIR: dataDir, PORT: '0', ADSVC_HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  delete env['ADSVC_QUEUE_PREFIX'];
  const config = loadConfig(env);
  const service = await startService({ config, clock: systemClock, log: createLogger('warn', 2), pathVar: process.env['PATH'] });
  try {
    const made = await runCommand({ store: service.store, clock: systemClock, config }, 'accounts.create', {
      name: 'Bench',
      url: 'https://bench.example',
      timezone: 'UTC',
      currency: 'USD',
    });
    const agent = new Agent({ keepAlive: true, maxSockets: args.connections });
    const headers = { authorization: `Bearer ${made.api_key.key}` };
    const once = (): Promise<number> =>
      new Promise((resolve, reject) => {
        const started = process.hrtime.bigint();
        const req = request({ host: '127.0.0.1', port: service.port, path: '/v1/ad_account', headers, agent }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`status ${res.statusCode}`))));
        });
        req.on('error', reject);
        req.end();
      });
    for (let i = 0; i < 200; i++) await once(); // warm-up
    const latencies: number[] = [];
    const deadline = Date.now() + args.seconds * 1000;
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: args.connections }, async () => {
        while (Date.now() < deadline) latencies.push(await once());
      }),
    );
    const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
    agent.destroy();
    latencies.sort((a, b) => a - b);
    return {
      suite: 'http GET /v1/ad_account',
      connections: String(args.connections),
      requests: String(latencies.length),
      'req/s': (latencies.length / elapsed).toFixed(0),
      'p50 ms': percentile(latencies, 50).toFixed(2),
      'p99 ms': percentile(latencies, 99).toFixed(2),
      'peak RSS MiB': (process.resourceUsage().maxRSS / 1024).toFixed(0),
    };
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * `ingest`: N generated impressions and clicks (as NDJSON, CSV and Parquet,
 * written by DuckDB in a temp dir) loaded through the full loader (stage,
 * checks, dedup, store, daily spend) into one store, each format after the
 * previous (so later formats also dedup against the stored rows), beside a
 * bare DuckDB load of the same file into an empty table with no checks.
 */
async function ingestSuite(args: Args): Promise<Record<string, string>[]> {
  const { loadEventFile } = await import('../src/ingest/load-events.js');
  const { Store } = await import('../src/store/store.js');
  const { migrate } = await import('../src/store/migrations.js');
  const dir = mkdtempSync(join(tmpdir(), 'adsvc-bench-ingest-'));
  const store = await Store.open(join(dir, 'adsvc.duckdb'));
  try {
    await migrate(store, systemClock);
    const made = await runCommand({ store, clock: systemClock, config: loadConfig({ ADSVC_DATA_DIR: dir }) }, 'accounts.create', {
      name: 'Bench',
      url: 'https://bench.example',
      timezone: 'America/New_York',
      currency: 'USD',
    });
    const acct = made.account.id;
    // One ad row is all the loader needs to resolve ownership; the API path is measured elsewhere.
    await store.run(
      `INSERT INTO ads (id, ad_account_id, ad_group_id, campaign_id, name, status, review_status, review_seq, creative_type, title, target_url, file_id, created_at_ms, updated_at_ms)
       SELECT 'ad_bench_' || i, $a, 'adgrp_bench', 'cmpn_bench', 'Bench', 'active', 'approved', 1, 'chat_card', 'T', 'https://x.example', 'file_x', 0, 0 FROM range(20) t(i)`,
      { a: acct },
    );
    const now = Date.now();
    const gen = `SELECT 'ev' || i AS event_id, CASE WHEN i % 20 = 0 THEN 'click' ELSE 'impression' END AS type,
        (${now} - (i * 7919) % (5 * 86400000))::VARCHAR AS timestamp, 'ad_bench_' || (i % 20) AS ad_id, 'u' || (i % 50000) AS user_id,
        CASE i % 3 WHEN 0 THEN 'US' WHEN 1 THEN 'DE' ELSE 'IN' END AS country, 'mobile' AS device, ((i % 900) + 100)::VARCHAR AS cost_micros
      FROM range(${args.events}) t(i)`;
    const files = { ndjson: join(dir, 'ev.ndjson'), csv: join(dir, 'ev.csv'), parquet: join(dir, 'ev.parquet') };
    await store.run(`COPY (${gen}) TO '${files.ndjson}' (FORMAT json)`);
    await store.run(`COPY (${gen}) TO '${files.csv}' (HEADER)`);
    await store.run(`COPY (${gen}) TO '${files.parquet}' (FORMAT parquet)`);
    const bare: Record<string, string> = {
      ndjson: `SELECT * FROM read_json('${files.ndjson}', format = 'newline_delimited')`,
      csv: `SELECT * FROM read_csv('${files.csv}', header = true)`,
      parquet: `SELECT * FROM read_parquet('${files.parquet}')`,
    };
    const rows: Record<string, string>[] = [];
    for (const format of ['parquet', 'ndjson', 'csv'] as const) {
      let t0 = performance.now();
      await store.run(`CREATE TABLE bare_${format} AS ${bare[format]}`);
      const bareS = (performance.now() - t0) / 1000;
      t0 = performance.now();
      const summary = await loadEventFile({ store, clock: systemClock }, { runId: `bench_${format}`, path: files[format], format, source: format, scopeAccountId: null });
      const loadS = (performance.now() - t0) / 1000;
      rows.push({
        suite: `ingest ${format}`,
        events: String(args.events),
        stored: String(summary.stored),
        duplicates: String(summary.duplicates),
        'events/s': (args.events / loadS).toFixed(0),
        'bare copy events/s': (args.events / bareS).toFixed(0),
        'of bare': `${((bareS / loadS) * 100).toFixed(0)}%`,
        'peak RSS MiB': (process.resourceUsage().maxRSS / 1024).toFixed(0),
      });
    }
    return rows;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const SUITES: Record<string, (a: Args) => Promise<Record<string, string> | Record<string, string>[]>> = { http: httpSuite, ingest: ingestSuite };

const args = parseArgs(process.argv.slice(2));
const rows: Record<string, string>[] = [];
for (const name of args.suites) {
  const suite = SUITES[name];
  if (!suite) {
    process.stderr.write(`unknown bench suite '${name}'; known: ${Object.keys(SUITES).join(', ')}\n`);
    process.exit(2);
  }
  rows.push(...[await suite(args)].flat());
}
const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
const width = (c: string) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length));
process.stdout.write(`machine: ${(await import('node:os')).cpus().length} cores, node ${process.version}\n`);
process.stdout.write(cols.map((c) => c.padEnd(width(c))).join('  ') + '\n');
for (const r of rows) process.stdout.write(cols.map((c) => (r[c] ?? '').padEnd(width(c))).join('  ') + '\n');
process.exit(0);
