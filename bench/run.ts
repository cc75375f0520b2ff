import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
 * `npm run bench -- ingest [--events N (10M)] [--base M (50M)]`
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
  base: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { suites: [], seconds: 10, connections: 16, events: 10_000_000, base: 50_000_000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--seconds') args.seconds = Number(argv[++i]);
    else if (a === '--connections') args.connections = Number(argv[++i]);
    else if (a === '--events') args.events = Number(argv[++i]);
    else if (a === '--base') args.base = Number(argv[++i]);
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

/** Peak resident memory since the last reset (Linux: VmHWM, reset through clear_refs). */
function peakRssMiB(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : process.resourceUsage().maxRSS / 1024;
}
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not Linux: the figure is then the process's peak so far.
  }
}

const mib = (n: number) => `${n.toFixed(0)}`;

/**
 * `ingest [--events N] [--base M]`: a store already holding M generated events
 * (loaded through the same loader beforehand, not timed), then N new events
 * per format (Parquet, NDJSON, CSV; each its own seed, so each load stores N
 * new events) loaded as an ingest run: parse, validate, dedup against
 * everything stored, store, refresh rollups, attribution and daily spend.
 * Beside each, the reference: a bare DuckDB COPY of the same file into an
 * empty table with no checks (INSERT … SELECT * from DuckDB's reader, skipping
 * broken lines). Peak RSS is measured per load.
 */
async function ingestSuite(args: Args): Promise<Record<string, string>[]> {
  const { Store } = await import('../src/store/store.js');
  const { databasePath } = await import('../src/admin/socket-path.js');
  const { migrate } = await import('../src/store/migrations.js');
  const { createRun, describeFiles, processRun, getRun } = await import('../src/ingest/ingest-runs.js');
  const dir = mkdtempSync(join(tmpdir(), 'adsvc-bench-ingest-'));
  const config = loadConfig({ ADSVC_DATA_DIR: dir });
  const store = await Store.open(databasePath(dir));
  const ctx = { store, clock: systemClock, config };
  const log = (line: string) => process.stderr.write(`[bench ingest] ${line}\n`);
  try {
    await migrate(store, systemClock);
    const made = await runCommand(ctx, 'accounts.create', { name: 'Bench', url: 'https://bench.example', timezone: 'America/New_York', currency: 'USD', enable: ['conversion_bidding'] });
    const account = made.account.id;
    const generate = (seed: number, events: number, out: string, days: number, createEntities = false) =>
      runCommand(ctx, 'events.generate', { account, days, events, seed, out, create_entities: createEntities });
    const load = async (files: string[]) => {
      const runId = await createRun(ctx, { accountId: account, origin: 'cli', files: describeFiles(files) });
      await processRun(ctx, runId);
      return getRun(ctx, runId, null);
    };
    // The existing store: base events over 90 days, in files of at most 10M rows.
    let t0 = performance.now();
    const chunk = 10_000_000;
    for (let i = 0, seed = 100; i < args.base; i += chunk, seed++) {
      const file = join(dir, `base-${seed}.parquet`);
      await generate(seed, Math.min(chunk, args.base - i), file, 90, i === 0);
      const run = await load([file]);
      if (run.status !== 'succeeded') throw new Error(`base load failed: ${run.error}`);
      rmSync(file);
      log(`base: ${i + Math.min(chunk, args.base - i)} events stored (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
    if (args.base === 0) await generate(1, 1, join(dir, 'entities.parquet'), 1, true);

    const bareRead: Record<string, (f: string) => string> = {
      parquet: (f) => `read_parquet('${f}')`,
      ndjson: (f) => `read_json('${f}', format = 'newline_delimited', ignore_errors = true)`,
      csv: (f) => `read_csv('${f}', header = true, ignore_errors = true)`,
    };

    const rows: Record<string, string>[] = [];
    const formats = [
      ['parquet', 'ev.parquet', 2],
      ['ndjson', 'ev.ndjson', 3],
      ['csv', 'ev.csv', 4],
    ] as const;
    for (const [format, name, seed] of formats) {
      const file = join(dir, name);
      t0 = performance.now();
      await generate(seed, args.events, file, 30);
      log(`${format}: ${args.events} events generated (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
      // Reference: bare COPY into an empty table of the file's own columns.
      await store.run(`CREATE TABLE bare_${format} AS SELECT * FROM ${bareRead[format]?.(file)} LIMIT 0`);
      await store.run('CHECKPOINT');
      t0 = performance.now();
      // (COPY FROM json takes no IGNORE_ERRORS; the generated files hold a few broken lines, which the bare copy skips.)
      await store.run(`INSERT INTO bare_${format} SELECT * FROM ${bareRead[format]?.(file)}`);
      const bareS = (performance.now() - t0) / 1000;
      await store.run(`DROP TABLE bare_${format}`);
      await store.run('CHECKPOINT');
      resetPeakRss();
      t0 = performance.now();
      const run = await load([file]);
      const loadS = (performance.now() - t0) / 1000;
      if (run.status !== 'succeeded') throw new Error(`${format} load failed: ${run.error}`);
      rows.push({
        suite: `ingest ${format}`,
        events: String(args.events),
        'stored before': String(args.base + rows.reduce((n, r) => n + Number(r['stored']), 0)),
        stored: String(run.stored),
        duplicates: String(run.duplicates),
        quarantined: String(run.quarantined),
        seconds: loadS.toFixed(1),
        'events/s': (args.events / loadS).toFixed(0),
        'bare COPY events/s': (args.events / bareS).toFixed(0),
        'of bare': `${((bareS / loadS) * 100).toFixed(0)}%`,
        'peak RSS MiB': mib(peakRssMiB()),
      });
      log(JSON.stringify(rows[rows.length - 1]));
      rmSync(file);
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
