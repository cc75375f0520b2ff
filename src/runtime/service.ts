import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { startJobSystem, type JobSystem } from '../../jobs/job-system.js';
import { startAdminServer } from '../admin/admin-server.js';
import { adminSocketPath, databasePath } from '../admin/socket-path.js';
import { buildApp } from '../app.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { migrate } from '../store/migrations.js';
import { Store } from '../store/store.js';
import { RateLimiter } from '../domain/rate-limits/rate-limiter.js';
import { RedisBackend } from '../domain/rate-limits/redis-backend.js';
import { resolveRedis, type RedisHandle } from './redis.js';

export interface ServiceOptions {
  config: Config;
  clock: Clock;
  log: Logger;
  /** PATH, to find redis-server when no Redis answers. */
  pathVar: string | undefined;
  /** Where to look for a Redis before starting one; tests point it elsewhere. */
  redisProbeUrl?: string;
}

export interface Service {
  url: string;
  port: number;
  store: Store;
  jobs: JobSystem;
  redis: RedisHandle;
  /** Graceful stop: no new requests, running jobs drain until the deadline, then everything closes. */
  close(): Promise<{ drained: boolean }>;
}

/**
 * `adsvc serve`: this process owns the DuckDB file and runs the HTTP API, the
 * job workers and the admin socket the CLI talks to.
 */
export async function startService(opts: ServiceOptions): Promise<Service> {
  const { config, clock, log } = opts;
  mkdirSync(config.dataDir, { recursive: true });
  const cleanups: (() => Promise<unknown>)[] = [];
  const unwind = async (): Promise<void> => {
    for (const fn of cleanups.reverse()) await fn().catch((err: unknown) => log.error({ err }, 'cleanup failed'));
  };
  try {
    const store = await Store.open(databasePath(config.dataDir), { memoryLimit: config.duckdbMemoryLimit });
    cleanups.push(() => store.close());
    const applied = await migrate(store, clock);
    if (applied.length > 0) log.info({ applied }, 'applied migrations');

    const redis = await resolveRedis({
      url: config.redisUrl,
      pathVar: opts.pathVar,
      dataDir: config.dataDir,
      log,
      ...(opts.redisProbeUrl === undefined ? {} : { probeUrl: opts.redisProbeUrl }),
    });
    cleanups.push(() => redis.stop());

    const jobs = await startJobSystem({
      redisUrl: redis.url,
      prefix: config.queuePrefix,
      store,
      clock,
      log,
      reviewDelayMs: config.reviewDelayMs,
      dataDir: config.dataDir,
      audienceMinSize: config.audienceMinSize,
      quarantineRetentionDays: config.quarantineRetentionDays,
      failedBatchRetentionDays: config.failedBatchRetentionDays,
      ingestChunkLines: config.ingestChunkLines,
      ingestBatchRuns: config.ingestBatchRuns,
      webhooks: { timeScale: config.webhookTimeScale, timeoutMs: config.webhookTimeoutMs },
    });
    cleanups.push(() => jobs.close(config.shutdownTimeoutMs));

    // Fastify gets the process logger so request logs and job logs share one stream.
    // One key space in Redis (ADSVC_RATE_LIMIT_PREFIX), so every process on this Redis shares the budget.
    const rateLimiter = new RateLimiter(new RedisBackend({ url: redis.url }), config.rateLimits, clock, log);
    const app = await buildApp(
      { config, store, clock, reviews: jobs.reviews, audienceJobs: jobs.audienceJobs, adReviews: jobs.adReviews, ingestJobs: jobs.ingestJobs, rateLimiter },
      { logger: log },
    );
    await app.listen({ port: config.port, host: config.host });
    cleanups.push(() => app.close());
    const port = (app.server.address() as AddressInfo).port;

    const admin = await startAdminServer(adminSocketPath(config.dataDir), { store, clock, config, ingestJobs: jobs.ingestJobs, adReviews: jobs.adReviews }, log);
    cleanups.push(() => admin.close());

    const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
    log.info({ url, dataDir: config.dataDir, redis: redis.url, embeddedRedis: redis.embedded, queuePrefix: config.queuePrefix }, 'adsvc serving');

    let closing: Promise<{ drained: boolean }> | undefined;
    return {
      url,
      port,
      store,
      jobs,
      redis,
      close() {
        closing ??= (async () => {
          log.info({}, 'shutting down');
          // Every step has a deadline, so a stop never hangs: a step still running then is logged by name and
          // left behind (the process exits next; DuckDB's log keeps what committed, and jobs are retried).
          const step = async (name: string, work: () => Promise<unknown>, ms: number): Promise<void> => {
            let timer: NodeJS.Timeout | undefined;
            const done = await Promise.race([work().then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)))]);
            clearTimeout(timer);
            if (done) log.info({ step: name }, 'shutdown step done');
            else log.warn({ step: name, deadlineMs: ms }, 'shutdown step still running at its deadline; going on without it');
          };
          const grace = config.shutdownTimeoutMs + 5_000;
          // Order: stop the CLI door and HTTP, drain jobs, then Redis and the store.
          await step('admin socket', () => admin.close(), grace);
          // A client that keeps a connection busy past the deadline is cut off.
          const timer = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
          await step('http', () => app.close(), grace);
          clearTimeout(timer);
          let result = { drained: false };
          await step('jobs', async () => (result = await jobs.close(config.shutdownTimeoutMs)), grace);
          await step('redis', () => redis.stop(), grace);
          await step('store', () => store.close(), grace);
          log.info({ drained: result.drained }, 'stopped');
          return result;
        })();
        return closing;
      },
    };
  } catch (err) {
    await unwind();
    throw err;
  }
}
