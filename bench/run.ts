import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../src/admin/commands.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startService } from '../src/runtime/service.js';
import { ratelimitSuite } from './ratelimit.js';

/**
 * `npm run bench [-- http] [--seconds N] [--connections N]`
 * `npm run bench -- ingest [--events N (10M)] [--base M (50M)] [--formats parquet,ndjson,csv] [--data DIR (keep the base store; --formats none builds only it)]`
 *   (`--formats posts [--requests N (100)]`: N POST /v1/events bodies of 10k events, loaded one run at a time and in batches)
 * `npm run bench -- query [--events N (50M)] [--data DIR]`
 * `npm run bench -- ratelimit [--seconds N (10)]`: limits, growth rule and overload shedding on loopback (bench/ratelimit.ts)
 * `npm run bench -- conversions [--events N (50M)] [--data DIR]` (the query suite's data set)
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
  /** Whether --events was given (suites have their own defaults). */
  eventsGiven: boolean;
  base: number;
  /** `--data DIR`: keep the suite's store there and reuse it next time (query suite; ingest: the base store, which the timed loads then grow). */
  data: string | null;
  /** `--formats parquet,csv`: the ingest suite's formats (default all three; `posts` only when named). */
  formats: string[] | null;
  /** `--requests N`: POST /v1/events bodies of the ingest suite's `posts`. */
  requests: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { suites: [], seconds: 10, connections: 16, events: 10_000_000, eventsGiven: false, base: 50_000_000, data: null, formats: null, requests: 100 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--seconds') args.seconds = Number(argv[++i]);
    else if (a === '--connections') args.connections = Number(argv[++i]);
    else if (a === '--events') {
      args.events = Number(argv[++i]);
      args.eventsGiven = true;
    }
    else if (a === '--base') args.base = Number(argv[++i]);
    else if (a === '--data') args.data = String(argv[++i]);
    else if (a === '--formats') args.formats = String(argv[++i]).split(',');
    else if (a === '--requests') args.requests = Number(argv[++i]);
    else args.suites.push(a);
  }
  if (args.suites.length === 0) args.suites = ['http'];
  return args;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function httpSuite(args: Args): Promise<Record<string, string>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'adsvc-bench-'));
  // Limits lifted and a key space of its own: this suite measures the request path, not the limiter's refusals.
  const env: Record<string, string | undefined> = {
    ...process.env,
    ADSVC_DATA_DIR: dataDir,
    PORT: '0',
    ADSVC_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ADSVC_RATE_LIMIT_PER_ENDPOINT: '100000000',
    ADSVC_RATE_LIMIT_OVERALL: '100000000',
    ADSVC_RATE_LIMIT_GROWTH_THRESHOLD: '100000000',
    ADSVC_RATE_LIMIT_PREFIX: `adsvc-bench-${Date.now()}`,
  };
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

/** A migrated store for a suite: in a temp data dir removed on close, or in `keep` (created if missing, kept). */
async function benchContext(name: string, keep: string | null = null) {
  const { Store } = await import('../src/store/store.js');
  const { databasePath } = await import('../src/admin/socket-path.js');
  const { migrate } = await import('../src/store/migrations.js');
  if (keep !== null) mkdirSync(keep, { recursive: true });
  const dir = keep ?? mkdtempSync(join(tmpdir(), `adsvc-bench-${name}-`));
  const config = loadConfig({ ADSVC_DATA_DIR: dir, ADSVC_DUCKDB_MEMORY_LIMIT: process.env['ADSVC_DUCKDB_MEMORY_LIMIT'], ADSVC_INGEST_CHUNK_LINES: process.env['ADSVC_INGEST_CHUNK_LINES'] });
  const open = () => Store.open(databasePath(dir), { memoryLimit: config.duckdbMemoryLimit });
  const store = await open();
  await migrate(store, systemClock);
  const ctx = { store, clock: systemClock, config };
  return {
    dir,
    ctx,
    get store() {
      return ctx.store;
    },
    log: (line: string) => process.stderr.write(`[bench ${name}] ${line}\n`),
    /** Closes the store, runs `fn` on its closed database file (`databasePath(dir)`), and opens it again. */
    async whileClosed(fn: (file: string) => void) {
      await ctx.store.close();
      fn(databasePath(dir));
      ctx.store = await open();
    },
    async close() {
      await ctx.store.close();
      if (keep === null) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Loads files as one ingest run, as `adsvc ingest` does without a service. */
async function loadRun(ctx: Awaited<ReturnType<typeof benchContext>>['ctx'], account: string, files: string[]) {
  const { createRun, describeFiles, processRun, getRun } = await import('../src/ingest/ingest-runs.js');
  const runId = await createRun(ctx, { accountId: account, origin: 'cli', files: describeFiles(files) });
  await processRun({ ...ctx, ingestChunkLines: ctx.config.ingestChunkLines }, runId);
  const run = await getRun(ctx, runId, null);
  // A failed load must stop the bench: figures over missing data mean nothing.
  if (run.status !== 'succeeded') throw new Error(`ingest run ${runId} ${run.status}: ${JSON.stringify(run).slice(0, 500)}`);
  return run;
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
 * Each format loads into the same base (its database file is put back
 * before each load and after the last).
 * Beside each, the reference: a bare DuckDB COPY of the same file into an
 * empty table with no checks (INSERT … SELECT * from DuckDB's reader, skipping
 * broken lines), and a floor under any exactly-once load of the file: that
 * copy plus the key check (the file's key hashes matched against every stored
 * one, and those repeated within the file found), with nothing derived.
 * Peak RSS is measured per load.
 */
async function ingestSuite(args: Args): Promise<Record<string, string>[]> {
  const b = await benchContext('ingest', args.data);
  // The store is reopened between formats (whileClosed): read it through b.store, never a copy kept from before.
  const { ctx, log, dir } = b;
  try {
    // A kept store (--data) that already holds the bench account is reused as the base.
    const kept = await b.store.get(`SELECT a.id, (SELECT count(*) FROM events e WHERE e.ad_account_id = a.id) AS n FROM ad_accounts a WHERE a.name = 'Bench' LIMIT 1`);
    const account =
      kept !== undefined
        ? String(kept['id'])
        : (await runCommand(ctx, 'accounts.create', { name: 'Bench', url: 'https://bench.example', timezone: 'America/New_York', currency: 'USD', enable: ['conversion_bidding'] })).account.id;
    const baseHeld = kept === undefined ? 0 : Number(kept['n']);
    if (kept !== undefined) log(`reusing ${baseHeld} stored events in ${dir}`);
    const generate = (seed: number, events: number, out: string, days: number, createEntities = false) =>
      runCommand(ctx, 'events.generate', { account, days, events, seed, out, create_entities: createEntities });
    const load = (files: string[]) => loadRun(ctx, account, files);
    // The existing store: base events over 90 days, in files of at most 10M rows.
    let t0 = performance.now();
    const chunk = 10_000_000;
    for (let i = 0, seed = 100; kept === undefined && i < args.base; i += chunk, seed++) {
      const file = join(dir, `base-${seed}.parquet`);
      await generate(seed, Math.min(chunk, args.base - i), file, 90, i === 0);
      const run = await load([file]);
      if (run.status !== 'succeeded') throw new Error(`base load failed: ${run.error}`);
      rmSync(file);
      log(`base: ${i + Math.min(chunk, args.base - i)} events stored (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
    if (kept === undefined && args.base === 0) await generate(1, 1, join(dir, 'entities.parquet'), 1, true);

    const bareRead: Record<string, (f: string) => string> = {
      parquet: (f) => `read_parquet('${f}')`,
      ndjson: (f) => `read_json('${f}', format = 'newline_delimited', ignore_errors = true)`,
      csv: (f) => `read_csv('${f}', header = true, ignore_errors = true)`,
    };

    const formats = (
      [
        ['parquet', 'ev.parquet', 2],
        ['ndjson', 'ev.ndjson', 3],
        ['csv', 'ev.csv', 4],
      ] as const
    ).filter(([format]) => args.formats === null || args.formats.includes(format));
    // Every format loads into the base as it is now, as the issue asks ("a store that already holds 50M
    // events"), not into one grown by the formats before it: the database file is kept aside here and put
    // back before each load, and after the last, so a kept store (--data) stays the base.
    const baseHeldNow = Number((await b.store.get(`SELECT count(*) AS n FROM events WHERE ad_account_id = $a`, { a: account }))?.['n']);
    const baseCopy = join(dir, 'base.duckdb.bench');
    const posts = args.formats?.includes('posts') === true;
    if (formats.length > 0 || posts) await b.whileClosed((file) => copyFileSync(file, baseCopy));
    const restoreBase = () =>
      b.whileClosed((file) => {
        copyFileSync(baseCopy, file);
        rmSync(`${file}.wal`, { force: true });
      });

    const rows: Record<string, string>[] = [];
    for (const [format, name, seed] of formats) {
      const file = join(dir, name);
      if (rows.length > 0) await restoreBase();
      const store = b.store;
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
      // The least exactly-once adds to that copy: every key hashed as the store hashes it, matched against
      // the stored events' key hashes, and the keys repeated within the file found. Read from the copy, so a
      // slow reader (JSON) is not counted twice. With the copy, a floor under any load of this file.
      const { keyHash } = await import('../src/ingest/load-events.js');
      t0 = performance.now();
      const keys = await store.get(
        `WITH k AS MATERIALIZED (SELECT ${keyHash('$account')} AS h FROM (SELECT event_id::VARCHAR AS event_id FROM bare_${format} WHERE event_id IS NOT NULL))
         SELECT (SELECT count(*) FROM events WHERE key_hash IN (SELECT h FROM k)) AS stored,
           (SELECT count(*) FROM (SELECT h FROM k GROUP BY h HAVING count(*) > 1)) AS repeated`,
        { account },
      );
      const keysS = (performance.now() - t0) / 1000;
      log(`${format}: bare copy ${bareS.toFixed(1)} s, key check ${keysS.toFixed(1)} s (${String(keys?.['stored'])} stored keys, ${String(keys?.['repeated'])} repeated)`);
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
        'stored before': String(baseHeldNow),
        stored: String(run.stored),
        duplicates: String(run.duplicates),
        quarantined: String(run.quarantined),
        seconds: loadS.toFixed(1),
        'events/s': (args.events / loadS).toFixed(0),
        'bare COPY events/s': (args.events / bareS).toFixed(0),
        'of bare': `${((bareS / loadS) * 100).toFixed(0)}%`,
        'key check s': keysS.toFixed(1),
        'floor events/s': (args.events / (bareS + keysS)).toFixed(0),
        'peak RSS MiB': mib(peakRssMiB()),
      });
      log(JSON.stringify(rows[rows.length - 1]));
      rmSync(file);
    }
    if (posts) rows.push(...(await postsRows({ ctx, dir, log, account, baseHeld: baseHeldNow, requests: args.requests, generate, restoreBase, restoreFirst: rows.length > 0 })));
    if (rows.length > 0) await restoreBase();
    rmSync(baseCopy, { force: true });
    return rows;
  } finally {
    await b.close();
  }
}

/**
 * `ingest --formats posts`: generated events as POST /v1/events bodies of
 * 10k events each (the most a request takes), all queued before the worker
 * starts, as after a burst of requests: loaded one run at a time (each its
 * own load), then, from the same base, in batches of INGEST_BATCH_RUNS, as
 * the service's worker does (each run's own job, in order; the jobs of runs
 * an earlier batch took find them done).
 */
async function postsRows(p: {
  ctx: Awaited<ReturnType<typeof benchContext>>['ctx'];
  dir: string;
  log: (line: string) => void;
  account: string;
  baseHeld: number;
  requests: number;
  generate: (seed: number, events: number, out: string, days: number) => Promise<unknown>;
  restoreBase: () => Promise<void>;
  restoreFirst: boolean;
}): Promise<Record<string, string>[]> {
  const { createRun, processRun, getRun } = await import('../src/ingest/ingest-runs.js');
  const { INGEST_BATCH_RUNS } = await import('../src/ingest/event-contract.js');
  const { MAX_EVENTS_PER_REQUEST } = await import('../src/ingest/event-requests.js');
  const { sqlList } = await import('../src/store/store.js');
  const all = join(p.dir, 'posts.ndjson');
  await p.generate(5, p.requests * MAX_EVENTS_PER_REQUEST, all, 30);
  const lines = readFileSync(all, 'utf8').split('\n').filter((l) => l !== '');
  rmSync(all);
  const bodies = Array.from({ length: Math.ceil(lines.length / MAX_EVENTS_PER_REQUEST) }, (_, i) => {
    const path = join(p.dir, `post-${i}.ndjson`);
    writeFileSync(path, lines.slice(i * MAX_EVENTS_PER_REQUEST, (i + 1) * MAX_EVENTS_PER_REQUEST).join('\n') + '\n');
    return path;
  });
  const rows: Record<string, string>[] = [];
  for (const [i, batchRuns] of [1, INGEST_BATCH_RUNS].entries()) {
    if (i > 0 || p.restoreFirst) await p.restoreBase();
    const ids: string[] = [];
    for (const path of bodies) ids.push(await createRun(p.ctx, { accountId: p.account, origin: 'api', files: [{ path, format: 'ndjson', source: 'request' }] }));
    resetPeakRss();
    const t0 = performance.now();
    for (const id of ids) await processRun({ ...p.ctx, ingestBatchRuns: batchRuns }, id);
    const loadS = (performance.now() - t0) / 1000;
    const runs = await Promise.all(ids.map((id) => getRun(p.ctx, id, null)));
    const failed = runs.find((r) => r.status !== 'succeeded');
    if (failed !== undefined) throw new Error(`posted run ${failed.id} ${failed.status}: ${failed.error}`);
    const loads = Number((await p.ctx.store.get('SELECT count(*) AS n FROM data_loads WHERE list_contains($ids, run_id)', { ids: sqlList(ids) }))?.['n']);
    const sum = (k: 'rows_read' | 'stored' | 'duplicates' | 'quarantined') => runs.reduce((n, r) => n + r[k], 0);
    rows.push({
      suite: `ingest posts, batches of ${batchRuns}`,
      events: String(sum('rows_read')),
      'stored before': String(p.baseHeld),
      stored: String(sum('stored')),
      duplicates: String(sum('duplicates')),
      quarantined: String(sum('quarantined')),
      seconds: loadS.toFixed(1),
      'events/s': (sum('rows_read') / loadS).toFixed(0),
      loads: String(loads),
      'peak RSS MiB': mib(peakRssMiB()),
    });
    p.log(JSON.stringify(rows[rows.length - 1]));
  }
  for (const path of bodies) rmSync(path);
  return rows;
}

/**
 * The query suite's data set: the issue's entities and `events` generated
 * events over 365 days, loaded as ingest runs, then compacted as the
 * maintenance job would a day later (the state reports run on, but for the
 * last day's loads).
 */
async function buildQueryDataSet(ctx: Awaited<ReturnType<typeof benchContext>>['ctx'], dir: string, tz: string, events: number, log: (line: string) => void): Promise<string> {
  const { createGeneratorEntities } = await import('../src/generate/entities.js');
  const made = await runCommand(ctx, 'accounts.create', { name: 'Bench', url: 'https://bench.example', timezone: tz, currency: 'USD', enable: ['conversion_bidding', 'product_segments'] });
  const account = made.account.id;
  const plan = Array.from({ length: 20 }, (_, c) => ({
    name: `Campaign ${c}`,
    bidding_type: c % 4 === 0 ? ('conversions' as const) : c % 2 === 0 ? ('impressions' as const) : ('clicks' as const),
    groups: Array.from({ length: 10 }, (_, g) => `Group ${g}`),
    ads: Array.from({ length: 10 }, (_, a) => `Ad ${a}`),
  }));
  const t0 = performance.now();
  await createGeneratorEntities({ ...ctx, adReviews: { schedule: async () => undefined } }, account, plan);
  log(`entities: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const chunk = 10_000_000;
  for (let i = 0, seed = 1; i < events; i += chunk, seed++) {
    const file = join(dir, `q-${seed}.parquet`);
    const n = Math.min(chunk, events - i);
    // Each chunk covers the whole year, so every file adds to every day.
    await runCommand(ctx, 'events.generate', { account, days: 365, events: n, seed, out: file });
    const t1 = performance.now();
    await loadRun(ctx, account, [file]);
    rmSync(file);
    log(`${i + n} events loaded (chunk ${((performance.now() - t1) / 1000).toFixed(0)} s, total ${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  // What the maintenance job does a day after the loads: merge them into one row per key, in cluster order (upkeep.ts).
  const { compactStore, CURSOR_LIFETIME_MS } = await import('../src/ingest/upkeep.js');
  const t2 = performance.now();
  const compacted = await compactStore({ store: ctx.store, clock: { nowMs: () => Date.now() + CURSOR_LIFETIME_MS + 3_600_000 } });
  log(`compacted ${compacted.merged} rollup rows (${((performance.now() - t2) / 1000).toFixed(0)} s)`);
  await ctx.store.run('CHECKPOINT');
  return account;
}

const QUERY_TZ = 'America/New_York';

/** The query data set's account: a kept one (--data) is reused when it already holds the bench account with the events asked for, else it is built. */
async function queryDataSet(b: Awaited<ReturnType<typeof benchContext>>, events: number): Promise<string> {
  const existing = await b.store.get(`SELECT a.id, (SELECT count(*) FROM events e WHERE e.ad_account_id = a.id) AS n FROM ad_accounts a WHERE a.name = 'Bench' LIMIT 1`);
  if (existing !== undefined && Number(existing['n']) >= events * 0.99) {
    b.log(`reusing ${Number(existing['n'])} events in ${b.dir}`);
    return String(existing['id']);
  }
  if (existing !== undefined) throw new Error(`${b.dir} holds another data set; remove it or pick another --data`);
  return buildQueryDataSet(b.ctx, b.dir, QUERY_TZ, events, b.log);
}

/**
 * `query [--events N (50M)]`: GET insights on the issue's data set (one
 * account, 20 campaigns x 10 ad groups x 10 ads, 365 days, generated events
 * loaded through the loader, not timed), five typical requests run through
 * the insights service, each beside a straightforward hand-written query over
 * the raw events (per-row timezone conversion) that gives the same numbers.
 */
async function querySuite(given: Args): Promise<Record<string, string>[]> {
  const args = { ...given, events: given.eventsGiven ? given.events : 50_000_000 };
  const { getInsights } = await import('../src/insights/insights-service.js');
  const { pageSnapshots } = await import('../src/insights/page-snapshots.js');
  const { DateTime } = await import('luxon');
  const b = await benchContext('query', given.data);
  const { store, ctx, log } = b;
  try {
    const tz = QUERY_TZ;
    const account = await queryDataSet(b, args.events);
    const campaigns = (await store.all('SELECT id FROM campaigns WHERE ad_account_id = $a ORDER BY id', { a: account })).map((r) => String(r['id']));
    const group = String((await store.get('SELECT id FROM ad_groups WHERE ad_account_id = $a ORDER BY id LIMIT 1', { a: account }))?.['id']);
    const days = (n: number, zone = tz) => {
      const end = DateTime.now().setZone(zone).startOf('day');
      return { type: 'date_range', since: end.minus({ days: n }).toISODate(), until: end.minus({ days: 1 }).toISODate(), timezone: zone };
    };
    const us = (d: { since: string | null; until: string | null; timezone: string }) => [
      DateTime.fromISO(d.since ?? '', { zone: d.timezone }).toMillis() * 1000,
      DateTime.fromISO(d.until ?? '', { zone: d.timezone }).plus({ days: 1 }).toMillis() * 1000,
    ];
    const localDay = (zone: string) => `strftime(timezone('${zone}', make_timestamptz(ts_us)), '%Y-%m-%d')`;
    const q3campaigns = campaigns.slice(0, 3);
    const cases: { name: string; scope: { level: 'ad_account' | 'ad_group'; id: string | null }; query: Record<string, string | string[]>; pages?: number; raw: string }[] = [];
    {
      const r = days(30);
      const [a, b] = us(r);
      cases.push({
        name: 'account daily 30d',
        scope: { level: 'ad_account', id: null },
        query: { time_ranges: [JSON.stringify(r)], fields: ['impressions', 'clicks', 'spend'] },
        raw: `SELECT ${localDay(tz)} d, count(*) FILTER (WHERE type = 'impression'::event_type), count(*) FILTER (WHERE type = 'click'::event_type), sum(cost_micros)
              FROM events WHERE ad_account_id = '${account}' AND type <> 'conversion'::event_type AND ts_us >= ${a} AND ts_us < ${b} GROUP BY 1 ORDER BY 1 LIMIT 20`,
      });
    }
    {
      const r = days(90);
      const [a, b] = us(r);
      cases.push({
        name: 'campaign daily 90d by spend',
        scope: { level: 'ad_account', id: null },
        query: { aggregation_level: 'campaign', time_ranges: [JSON.stringify(r)], fields: ['campaign.id', 'spend', 'impressions'], sort: [JSON.stringify({ field: 'spend', direction: 'desc' })] },
        // Events keep the ad only; its campaign and ad group come from the ads table (0013_event_columns.sql).
        raw: `SELECT ${localDay(tz)} d, ad.campaign_id, sum(cost_micros) s, count(*) FILTER (WHERE type = 'impression'::event_type)
              FROM events JOIN ads ad ON ad.id = events.ad_id
              WHERE events.ad_account_id = '${account}' AND type <> 'conversion'::event_type AND ts_us >= ${a} AND ts_us < ${b} GROUP BY 1, 2 ORDER BY s DESC LIMIT 20`,
      });
    }
    {
      const r = days(365);
      const [a, b] = us(r);
      cases.push({
        name: 'ad none 365d country, 3 campaigns, by clicks, 3 pages',
        scope: { level: 'ad_account', id: null },
        query: {
          aggregation_level: 'ad',
          time_granularity: 'none',
          segments: ['country'],
          time_ranges: [JSON.stringify(r)],
          fields: ['ad.id', 'country.code', 'clicks', 'impressions'],
          filters: [JSON.stringify({ field: 'campaign.id', operator: 'IN', value: q3campaigns })],
          sort: [JSON.stringify({ field: 'clicks', direction: 'desc' })],
          limit: '100',
        },
        pages: 3,
        raw: `SELECT ad_id, country, count(*) FILTER (WHERE type = 'click'::event_type) c, count(*) FILTER (WHERE type = 'impression'::event_type)
              FROM events WHERE ad_account_id = '${account}' AND type <> 'conversion'::event_type AND ts_us >= ${a} AND ts_us < ${b}
                AND ad_id IN (SELECT id FROM ads WHERE campaign_id IN (${q3campaigns.map((c) => `'${c}'`).join(', ')})) GROUP BY 1, 2 ORDER BY c DESC LIMIT 300`,
      });
    }
    {
      const r = days(7, 'Asia/Kolkata');
      const [a, b] = us(r);
      cases.push({
        name: 'ad group hourly 7d Asia/Kolkata',
        scope: { level: 'ad_group', id: group },
        query: { time_granularity: 'hourly', time_ranges: [JSON.stringify(r)], fields: ['impressions', 'clicks'], limit: '200' },
        raw: `SELECT strftime(timezone('Asia/Kolkata', make_timestamptz(ts_us)), '%Y-%m-%dT%H') h, count(*) FILTER (WHERE type = 'impression'::event_type), count(*) FILTER (WHERE type = 'click'::event_type)
              FROM events WHERE ad_account_id = '${account}' AND ad_id IN (SELECT id FROM ads WHERE ad_group_id = '${group}') AND type <> 'conversion'::event_type AND ts_us >= ${a} AND ts_us < ${b} GROUP BY 1 ORDER BY 1`,
      });
    }
    {
      const r = days(30);
      const [a, b] = us(r);
      cases.push({
        name: 'ad conversions 30d, click 7 view 0',
        scope: { level: 'ad_account', id: null },
        query: { aggregation_level: 'ad', time_ranges: [JSON.stringify(r)], fields: ['ad.id', 'conversions', 'clicks'], attribution_window_days: '7', view_through_attribution_window_days: '0' },
        // Last click within 7 days before each conversion of the user, straight from the events.
        raw: `WITH conv AS (SELECT * FROM events WHERE ad_account_id = '${account}' AND type = 'conversion'::event_type),
              clk AS (SELECT * FROM events WHERE ad_account_id = '${account}' AND type = 'click'::event_type),
              att AS (SELECT cv.event_id, arg_max(k.ad_id, k.ts_us) ad_id, max(k.ts_us) ts FROM conv cv JOIN clk k ON k.user_id = cv.user_id AND k.ts_us <= cv.ts_us AND k.ts_us >= cv.ts_us - 7 * 86400000000 GROUP BY 1)
              SELECT ${localDay(tz).replace('ts_us', 'ts')} d, ad_id, count(*) FROM att WHERE ts >= ${a} AND ts < ${b} GROUP BY 1, 2 ORDER BY 1, 2 LIMIT 20`,
      });
    }
    const rows: Record<string, string>[] = [];
    const runs = 20;
    for (const c of cases) {
      const engine: number[] = [];
      const firstPage: number[] = [];
      const raw: number[] = [];
      for (let i = 0; i < runs + 2; i++) {
        // Each run pays for its own cursor pages: no snapshot kept from the run before (page-snapshots.ts).
        await pageSnapshots(store).clear();
        let s = performance.now();
        let page = await getInsights(ctx, account, c.scope, c.query);
        if (i >= 2) firstPage.push(performance.now() - s);
        for (let p = 1; p < (c.pages ?? 1) && page.has_more; p++) page = await getInsights(ctx, account, c.scope, { ...c.query, after: page.last_id ?? '' });
        if (i >= 2) engine.push(performance.now() - s);
        s = performance.now();
        await store.all(c.raw);
        if (i >= 2) raw.push(performance.now() - s);
      }
      engine.sort((x, y) => x - y);
      firstPage.sort((x, y) => x - y);
      raw.sort((x, y) => x - y);
      rows.push({
        suite: `query ${c.name}`,
        events: String(args.events),
        'p50 ms': percentile(engine, 50).toFixed(1),
        'p95 ms': percentile(engine, 95).toFixed(1),
        // A multi-page request's p50 is its pages together; this is its first page alone.
        'first page p50 ms': percentile(firstPage, 50).toFixed(1),
        'raw SQL p50 ms': percentile(raw, 50).toFixed(1),
        'faster than raw': `${(percentile(raw, 50) / percentile(engine, 50)).toFixed(1)}x`,
      });
      log(JSON.stringify(rows[rows.length - 1]));
    }
    return rows;
  } finally {
    await b.close();
  }
}

/**
 * `conversions [--events N (50M)] [--data DIR]`: POST /conversions/insights on
 * the query suite's data set (the same store with --data), through the
 * conversion insights service: the issue's request (30 days, ad level, daily,
 * with the event details; 60 ads of a conversions campaign, so the zero rows
 * stay under the 2,000-row limit), and an account-wide daily report by country.
 */
async function conversionsSuite(given: Args): Promise<Record<string, string>[]> {
  const args = { ...given, events: given.eventsGiven ? given.events : 50_000_000 };
  const { getConversionInsights } = await import('../src/conversions/conversion-insights-service.js');
  const { DateTime } = await import('luxon');
  const b = await benchContext('query', given.data);
  try {
    const account = await queryDataSet(b, args.events);
    // Campaign 0 bids on conversions (an order_created goal): its ads have goal conversions.
    const ads = (
      await b.store.all(
        `SELECT a.id FROM ads a JOIN campaigns c ON c.id = a.campaign_id WHERE a.ad_account_id = $a AND c.bidding_type = 'conversions' ORDER BY c.name, a.id LIMIT 60`,
        { a: account },
      )
    ).map((r) => String(r['id']));
    const end = DateTime.now().setZone(QUERY_TZ).startOf('day');
    const range = JSON.stringify({ type: 'date_range', since: end.minus({ days: 30 }).toISODate(), until: end.minus({ days: 1 }).toISODate() });
    const cases = [
      {
        name: 'ad daily 30d, 60 ads, attributed_events',
        body: { aggregation_level: 'ad', time_ranges: [range], time_granularity: 'daily', entity_ids: ads, include: ['attributed_events'] },
      },
      {
        name: 'account-wide daily 30d by country, attributed_events',
        body: { aggregation_level: 'campaign', time_ranges: [range], time_granularity: 'daily', group_by_entity: false, breakdown: 'country', include: ['attributed_events'] },
      },
    ];
    const rows: Record<string, string>[] = [];
    const runs = 30;
    for (const c of cases) {
      const times: number[] = [];
      let out = await getConversionInsights(b.ctx, account, c.body);
      for (let i = 0; i < runs + 3; i++) {
        const s = performance.now();
        out = await getConversionInsights(b.ctx, account, c.body);
        if (i >= 3) times.push(performance.now() - s);
      }
      times.sort((x, y) => x - y);
      const events = out.data.reduce((n, r) => n + (r.attributed_events?.length ?? 0), 0);
      const conversions = out.data.reduce((n, r) => n + r.conversions, 0);
      rows.push({
        suite: `conversions ${c.name}`,
        events: String(args.events),
        rows: `${out.count} summary, ${events} event, ${conversions} goal conversions`,
        'p50 ms': percentile(times, 50).toFixed(1),
        'p95 ms': percentile(times, 95).toFixed(1),
      });
      b.log(JSON.stringify(rows[rows.length - 1]));
    }
    return rows;
  } finally {
    await b.close();
  }
}

const SUITES: Record<string, (a: Args) => Promise<Record<string, string> | Record<string, string>[]>> = {
  http: httpSuite,
  ingest: ingestSuite,
  query: querySuite,
  conversions: conversionsSuite,
  ratelimit: ratelimitSuite,
};

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
