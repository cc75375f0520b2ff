import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.js';
import { ManualClock } from '../../src/clock.js';
import type { BrandReviewScheduler } from '../../src/domain/accounts/accounts.js';
import type { AdReviewScheduler } from '../../src/domain/ads/ads.js';
import type { AudienceProcessingScheduler } from '../../src/domain/audiences/audiences.js';
import type { IngestScheduler } from '../../src/ingest/ingest-runs.js';
import type { Store } from '../../src/store/store.js';
import type { Config } from '../../src/config.js';
import { RateLimiter } from '../../src/domain/rate-limits/rate-limiter.js';
import { RedisBackend } from '../../src/domain/rate-limits/redis-backend.js';
import { openMigratedStore, quietLog, redisUrl, tempDir, testConfig } from './context.js';

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  clock: ManualClock;
  dataDir: string;
  /** Reviews the app asked to schedule (when no real job system is given). */
  scheduled: { accountId: string; reviewSeq: number }[];
  /** Audiences the app asked to process (when no real job system is given). */
  audiencesQueued: string[];
  /** Ad reviews the app asked to schedule (when no real job system is given). */
  adReviewsQueued: { adId: string; reviewSeq: number }[];
  /** Ingest runs the app asked to process (when no real job system is given). */
  ingestQueued: string[];
  config: Config;
  close(): Promise<void>;
}

/** The real app over a temp DuckDB; reviews are recorded unless a scheduler is passed. */
export async function startTestApp(
  opts: AppOptions & { reviews?: BrandReviewScheduler; audienceJobs?: AudienceProcessingScheduler; adReviews?: AdReviewScheduler; ingestJobs?: IngestScheduler; spendLimitFaults?: { afterDailyCommit?: () => void }; clock?: ManualClock; env?: Record<string, string>; rateLimiter?: RateLimiter } = {},
): Promise<TestApp> {
  const dir = tempDir();
  const clock = opts.clock ?? new ManualClock(Date.UTC(2026, 10, 22, 12));
  const store = await openMigratedStore(dir.path, clock);
  const scheduled: TestApp['scheduled'] = [];
  const reviews: BrandReviewScheduler = opts.reviews ?? {
    schedule: async (accountId, reviewSeq) => {
      scheduled.push({ accountId, reviewSeq });
    },
  };
  const audiencesQueued: string[] = [];
  const audienceJobs: AudienceProcessingScheduler = opts.audienceJobs ?? {
    schedule: async (id) => {
      audiencesQueued.push(id);
    },
  };
  const adReviewsQueued: TestApp['adReviewsQueued'] = [];
  const adReviews: AdReviewScheduler = opts.adReviews ?? {
    schedule: async (adId, reviewSeq) => {
      adReviewsQueued.push({ adId, reviewSeq });
    },
  };
  const ingestQueued: string[] = [];
  const ingestJobs: IngestScheduler = opts.ingestJobs ?? {
    schedule: async (runId) => {
      ingestQueued.push(runId);
    },
  };
  const config = testConfig(dir.path, opts.env);
  // The Redis-backed limiter, as `serve` has it; a test may pass its own (e.g. one whose Redis is down).
  const rateLimiter = opts.rateLimiter ?? new RateLimiter(new RedisBackend({ url: config.redisUrl ?? redisUrl() }), config.rateLimits, clock, quietLog);
  const app = await buildApp(
    { config, store, clock, reviews, audienceJobs, adReviews, ingestJobs, rateLimiter, ...(opts.spendLimitFaults ? { spendLimitFaults: opts.spendLimitFaults } : {}) },
    opts,
  );
  await app.ready();
  return {
    app,
    store,
    clock,
    dataDir: dir.path,
    scheduled,
    audiencesQueued,
    adReviewsQueued,
    ingestQueued,
    config,
    async close() {
      await app.close();
      await store.close();
      dir.cleanup();
    },
  };
}
