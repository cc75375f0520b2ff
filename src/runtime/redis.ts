import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { Redis } from 'ioredis';
import type { LogSink } from '../logger.js';

export interface RedisHandle {
  url: string;
  /** True when this process started the server and will stop it. */
  embedded: boolean;
  stop(): Promise<void>;
}

export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

const HOW_TO_GET_REDIS =
  'adsvc needs Redis for its job queues. Either set REDIS_URL=redis://host:port, run a Redis on 127.0.0.1:6379, ' +
  'or install redis-server so adsvc can start its own (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis).';

/** PING with a short timeout and no retries; true when a Redis answers. */
export async function redisAnswers(url: string, timeoutMs = 800): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export function findOnPath(command: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `redis-server` on a free loopback port, keeping its data (AOF) in `dir`. */
export async function startEmbeddedRedis(binary: string, dir: string, log: LogSink): Promise<RedisHandle> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '', '--daemonize', 'no', '--logfile', 'redis.log'],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers(url, 300))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new RedisUnavailableError(`redis-server at ${binary} did not start (see ${join(dir, 'redis.log')}). ${HOW_TO_GET_REDIS}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  log.info({ url, dir }, 'started embedded redis-server');
  return {
    url,
    embedded: true,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface ResolveRedisOptions {
  /** REDIS_URL, when set: used as is, and it must answer. */
  url: string | undefined;
  /** Where to look before starting one (127.0.0.1:6379). */
  probeUrl?: string;
  /** PATH to search for redis-server. */
  pathVar: string | undefined;
  /** Directory for an embedded server's data. */
  dataDir: string;
  log: LogSink;
}

/** REDIS_URL; else a Redis on 127.0.0.1:6379; else our own redis-server; else a clear error. */
export async function resolveRedis(opts: ResolveRedisOptions): Promise<RedisHandle> {
  const noop = async (): Promise<void> => undefined;
  if (opts.url !== undefined) {
    if (!(await redisAnswers(opts.url, 3000))) {
      throw new RedisUnavailableError(`Redis at REDIS_URL=${opts.url} does not answer. ${HOW_TO_GET_REDIS}`);
    }
    return { url: opts.url, embedded: false, stop: noop };
  }
  const probe = opts.probeUrl ?? 'redis://127.0.0.1:6379';
  if (await redisAnswers(probe)) return { url: probe, embedded: false, stop: noop };
  const binary = findOnPath('redis-server', opts.pathVar);
  if (binary === undefined) {
    throw new RedisUnavailableError(`REDIS_URL is not set, nothing answers on ${probe}, and redis-server is not on PATH. ${HOW_TO_GET_REDIS}`);
  }
  return startEmbeddedRedis(binary, join(opts.dataDir, 'redis'), opts.log);
}
