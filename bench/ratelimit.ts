import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { sendAdminCommand } from '../src/admin/admin-client.js';
import { adminSocketPath } from '../src/admin/socket-path.js';
import { freePort } from '../src/runtime/redis.js';
import { randomToken } from '../src/ids.js';
import { projectRoot } from '../src/store/project-root.js';

/**
 * `npm run bench -- ratelimit`: a bounded load test on loopback against real
 * `serve` processes (issue 9). Three phases, each its own process:
 *   limits   production limits, growth rule out of the way: 1,000 requests to
 *            one endpoint then 1,000 to another, offered at 250/s.
 *   growth   production limits: 600 requests at 150/s from a new account,
 *            which the growth rule holds at its threshold (300 a minute).
 *            These two phases turn overload shedding off: on a busy 2-core
 *            machine a fresh process can shed its first second of requests,
 *            which would blur the counts these phases are about.
 *   overload limits out of the way, production overload settings, the demo
 *            data: capacity of an insights request measured closed-loop, then
 *            three times that offered open-loop for --seconds (default 10),
 *            then the time until a request succeeds again.
 * The load generator is open-loop (requests leave on schedule whatever the
 * answers), so the offered load really is a multiple of what the process
 * serves; the figures it prints are counts by status and code.
 */

interface Tally {
  offered: number;
  byOutcome: Map<string, number>;
  latencies: Map<number, number[]>;
  /** The first response of each status: its headers, for the report. */
  samples: Map<number, IncomingHttpHeaders>;
  socketErrors: number;
}

const ErrorBody = z.object({ error: z.object({ code: z.string().nullable() }) });

function send(port: number, path: string, headers: Record<string, string>, agent: Agent, tally: Tally): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        let outcome = String(status);
        if (status >= 400) {
          const parsed = ErrorBody.safeParse(JSON.parse(Buffer.concat(chunks).toString() || 'null'));
          outcome += ` ${parsed.success ? parsed.data.error.code : '(no error body)'}`;
        }
        tally.byOutcome.set(outcome, (tally.byOutcome.get(outcome) ?? 0) + 1);
        const list = tally.latencies.get(status) ?? [];
        list.push(Number(process.hrtime.bigint() - started) / 1e6);
        tally.latencies.set(status, list);
        if (!tally.samples.has(status)) tally.samples.set(status, res.headers);
        resolve(status);
      });
    });
    req.on('error', () => {
      tally.socketErrors++;
      resolve(0);
    });
    req.end();
  });
}

const newTally = (): Tally => ({ offered: 0, byOutcome: new Map(), latencies: new Map(), samples: new Map(), socketErrors: 0 });

/** Open loop: `rate` requests a second for `seconds`, whatever the answers; resolves when all have answered. */
async function offer(port: number, path: string, headers: Record<string, string>, rate: number, seconds: number): Promise<Tally> {
  const tally = newTally();
  const agent = new Agent({ keepAlive: true, maxSockets: 1024 });
  const pending: Promise<number>[] = [];
  const total = Math.round(rate * seconds);
  const t0 = Date.now();
  while (tally.offered < total) {
    const due = Math.min(total, Math.floor(((Date.now() - t0) / 1000) * rate));
    while (tally.offered < due) {
      tally.offered++;
      pending.push(send(port, path, headers, agent, tally));
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all(pending);
  agent.destroy();
  return tally;
}

/** Closed loop with `connections` in parallel for `seconds`: what the process serves when not overloaded. */
async function capacity(port: number, path: string, headers: Record<string, string>, connections: number, seconds: number): Promise<number> {
  const tally = newTally();
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const deadline = Date.now() + seconds * 1000;
  const t0 = Date.now();
  let ok = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline) if ((await send(port, path, headers, agent, tally)) === 200) ok++;
    }),
  );
  agent.destroy();
  return ok / ((Date.now() - t0) / 1000);
}

interface Served {
  port: number;
  dataDir: string;
  stderr(): string;
  /** JSON log lines (warn and above). */
  stdout(): string;
  stop(): Promise<void>;
}

async function serve(env: Record<string, string>, demo: boolean): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'adsvc-bench-rl-'));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(projectRoot(), 'dist', 'src', 'main.js'), 'serve', ...(demo ? ['--demo'] : [])], {
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...(process.env['REDIS_URL'] ? { REDIS_URL: process.env['REDIS_URL'] } : {}), ADSVC_DATA_DIR: dataDir, PORT: String(port), ADSVC_HOST: '127.0.0.1', LOG_LEVEL: 'warn', ADSVC_RATE_LIMIT_PREFIX: `adsvc-bench-${randomToken(8)}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    // A TCP connect, not a request: a request would count against the budget the phase measures.
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up && (!demo || /API key/.test(err))) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start:\n${err}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    port,
    dataDir,
    stderr: () => err,
    stdout: () => out,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const CreatedAccount = z.object({ api_key: z.object({ key: z.string() }) });

async function newKey(s: Served, name: string): Promise<Record<string, string>> {
  const out = await sendAdminCommand(adminSocketPath(s.dataDir), 'accounts.create', { name, url: 'https://bench.example', timezone: 'UTC', currency: 'USD' });
  if (!out.reached) throw new Error('admin socket not reachable');
  return { authorization: `Bearer ${CreatedAccount.parse(out.result).api_key.key}` };
}

const percentile = (values: number[], p: number): string => {
  const sorted = [...values].sort((a, b) => a - b);
  const v = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  return v === undefined ? '-' : v.toFixed(1);
};

function row(phase: string, t: Tally, extra: Record<string, string> = {}): Record<string, string> {
  const outcomes = [...t.byOutcome.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}: ${n}`);
  const other5xx = [...t.byOutcome.entries()].filter(([k]) => k.startsWith('5') && !k.startsWith('503 server_is_overloaded')).reduce((n, [, c]) => n + c, 0);
  return {
    suite: `ratelimit ${phase}`,
    offered: String(t.offered),
    outcomes: outcomes.join(', '),
    'other 5xx': String(other5xx),
    'socket errors': String(t.socketErrors),
    'p50 ms 200': percentile(t.latencies.get(200) ?? [], 50),
    'p99 ms 200': percentile(t.latencies.get(200) ?? [], 99),
    ...extra,
  };
}

function headerLine(label: string, h: IncomingHttpHeaders | undefined): string {
  if (h === undefined) return `  ${label}: (none)\n`;
  const names = ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests', 'retry-after'];
  return `  ${label}: ${names.filter((n) => h[n] !== undefined).map((n) => `${n}: ${String(h[n])}`).join('; ')}\n`;
}

const NO_SHEDDING = { ADSVC_OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0', ADSVC_OVERLOAD_MAX_HEAP_PERCENT: '0', ADSVC_OVERLOAD_MAX_QUERIES_IN_FLIGHT: '0' };
const HIGH_LIMITS = { ADSVC_RATE_LIMIT_PER_ENDPOINT: '100000000', ADSVC_RATE_LIMIT_OVERALL: '100000000', ADSVC_RATE_LIMIT_GROWTH_THRESHOLD: '100000000' };

export async function ratelimitSuite(args: { seconds: number }): Promise<Record<string, string>[]> {
  const rows: Record<string, string>[] = [];
  const log = (s: string): void => void process.stderr.write(s);

  // Phase 1: the per-minute limits at production values; the growth rule is lifted so it does not act first.
  const limits = await serve({ ADSVC_RATE_LIMIT_GROWTH_THRESHOLD: '100000000', ...NO_SHEDDING }, false);
  try {
    const key = await newKey(limits, 'Bench limits');
    const a = await offer(limits.port, '/v1/ad_account', key, 250, 4);
    const b = await offer(limits.port, '/v1/campaigns', key, 250, 4);
    rows.push(row('limits: endpoint A', a), row('limits: endpoint B', b));
    log('limits phase headers:\n' + headerLine('A 200', a.samples.get(200)) + headerLine('A 429', a.samples.get(429)) + headerLine('B 429', b.samples.get(429)));
  } finally {
    await limits.stop();
  }

  // Phase 2: production defaults; a new account jumps to 150/s.
  const growth = await serve(NO_SHEDDING, false);
  try {
    const key = await newKey(growth, 'Bench growth');
    const g = await offer(growth.port, '/v1/ad_account', key, 150, 4);
    rows.push(row('growth', g));
    log('growth phase headers:\n' + headerLine('200', g.samples.get(200)) + headerLine('429', g.samples.get(429)));
  } finally {
    await growth.stop();
  }

  // Phase 3: overload at three times the measured capacity, then recovery.
  const over = await serve(HIGH_LIMITS, true);
  try {
    const keyText = /\n\s+(adsvc_\S+)/.exec(over.stderr())?.[1];
    if (keyText === undefined) throw new Error(`no demo key in:\n${over.stderr()}`);
    const key = { authorization: `Bearer ${keyText}` };
    // The demo's events load in the background; wait until insights see them.
    const run = /ingest run (irun_\w+)/.exec(over.stderr())?.[1];
    const check = newTally();
    const agent = new Agent({ keepAlive: true });
    for (let i = 0; run !== undefined && i < 600; i++) {
      const body = await new Promise<string>((resolve) => {
        request({ host: '127.0.0.1', port: over.port, path: `/v1/ingest_runs/${run}`, headers: key, agent }, (res) => {
          let s = '';
          res.on('data', (c: Buffer) => (s += c.toString()));
          res.on('end', () => resolve(s));
        }).end();
      });
      if (/"status":"(succeeded|failed)"/.test(body)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    agent.destroy();
    const path = '/v1/ad_account/insights?aggregation_level=ad&time_granularity=daily&limit=500';
    const cap = await capacity(over.port, path, key, 4, 5);
    log(`overload phase: capacity ${cap.toFixed(0)} req/s closed-loop with 4 connections; offering ${(3 * cap).toFixed(0)} req/s for ${args.seconds} s\n`);
    const loadEnd = Date.now() + args.seconds * 1000;
    const o = await offer(over.port, path, key, 3 * cap, args.seconds);
    // Recovery: from the end of the offered load, the time until a request succeeds again.
    let recoveredMs = NaN;
    for (let i = 0; i < 200; i++) {
      const status = await send(over.port, path, key, new Agent(), check);
      if (status === 200) {
        recoveredMs = Math.max(0, Date.now() - loadEnd);
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    rows.push(row('overload 3x', o, { 'capacity req/s': cap.toFixed(0), 'recovered after ms': Number.isNaN(recoveredMs) ? 'not within 20 s' : String(recoveredMs), 'p99 ms 503': percentile(o.latencies.get(503) ?? [], 99) }));
    log('overload phase headers:\n' + headerLine('200', o.samples.get(200)) + headerLine('503', o.samples.get(503)));
    // Sampled signals log their transitions; shedding on DuckDB reads in flight is per request and logs nothing at warn.
    const transitions = over.stdout().split('\n').filter((l) => /overloaded: shedding|load back to normal/.test(l));
    log(`overload phase: ${transitions.length} event-loop/heap transitions logged${transitions.length ? ':\n  ' + transitions.map((l) => l.slice(0, 200)).join('\n  ') : ''}\n`);
  } finally {
    await over.stop();
  }
  return rows;
}
