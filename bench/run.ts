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
}

function parseArgs(argv: string[]): Args {
  const args: Args = { suites: [], seconds: 10, connections: 16 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--seconds') args.seconds = Number(argv[++i]);
    else if (a === '--connections') args.connections = Number(argv[++i]);
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

const SUITES: Record<string, (a: Args) => Promise<Record<string, string>>> = { http: httpSuite };

const args = parseArgs(process.argv.slice(2));
const rows: Record<string, string>[] = [];
for (const name of args.suites) {
  const suite = SUITES[name];
  if (!suite) {
    process.stderr.write(`unknown bench suite '${name}'; known: ${Object.keys(SUITES).join(', ')}\n`);
    process.exit(2);
  }
  rows.push(await suite(args));
}
const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
const width = (c: string) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length));
process.stdout.write(`machine: ${(await import('node:os')).cpus().length} cores, node ${process.version}\n`);
process.stdout.write(cols.map((c) => c.padEnd(width(c))).join('  ') + '\n');
for (const r of rows) process.stdout.write(cols.map((c) => (r[c] ?? '').padEnd(width(c))).join('  ') + '\n');
process.exit(0);
