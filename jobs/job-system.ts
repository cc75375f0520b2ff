import { Queue, Worker, type Processor } from 'bullmq';
import type { Clock } from '../src/clock.js';
import { RETENTION_DEFAULTS } from '../src/config.js';
import type { UpkeepDeps } from '../src/ingest/upkeep.js';
import { settleBrandReview, type BrandReviewScheduler } from '../src/domain/accounts/accounts.js';
import { pendingAdReviews, settleAdReview, type AdReviewScheduler } from '../src/domain/ads/ads.js';
import type { AudienceProcessingScheduler } from '../src/domain/audiences/audiences.js';
import type { LogSink } from '../src/logger.js';
import { accountRepository } from '../src/store/repositories/account-repository.js';
import type { Store } from '../src/store/store.js';
import { audienceProcessingProcessor, audienceProcessingScheduler, reconcileAudiences } from './audience-processing.js';
import type { IngestScheduler } from '../src/ingest/ingest-runs.js';
import { ingestProcessor, ingestScheduler, reconcileIngestRuns } from './ingest.js';
import { maintenanceProcessor } from './maintenance.processor.js';
import { MAINTENANCE_TASKS, type MaintenanceTask } from './payloads.js';
import { DEFAULT_JOB_OPTIONS, QUEUE, type QueueName } from './queue-names.js';
import { reviewJobs } from './review-jobs.js';
import type { WebhookSender } from '../src/webhooks/http-sender.js';
import { webhookJobs, type WebhookJobs } from './webhook-delivery.js';

export interface JobSystemOptions {
  redisUrl: string;
  prefix: string;
  store: Store;
  clock: Clock;
  log: LogSink;
  /** Delay of brand and ad reviews. */
  reviewDelayMs: number;
  dataDir: string;
  audienceMinSize: number;
  /** Start workers (serve does; a producer-only process would not). */
  workers?: boolean;
  /** How often the reconcilers run (default one minute). */
  reconcileEveryMs?: number;
  /** Retention of the event pipeline's leftovers (defaults as in config). */
  quarantineRetentionDays?: number;
  failedBatchRetentionDays?: number;
  /** Lines of an event file per load transaction (default: the loader's). */
  ingestChunkLines?: number;
  /** Queued API runs of one account loaded together (default INGEST_BATCH_RUNS). */
  ingestBatchRuns?: number;
  /** Webhook delivery settings (defaults as in config); tests may pass their own HTTP client. */
  webhooks?: { timeScale: number; timeoutMs: number; send?: WebhookSender; reconcileEveryMs?: number };
}

/** How often each maintenance task runs: reconcilers as configured, upkeep on fixed periods. */
function taskEveryMs(task: MaintenanceTask, reconcileEveryMs: number): number {
  if (task === 'ingest-retention') return 10 * 60_000;
  if (task === 'compact-store') return 30 * 60_000;
  return reconcileEveryMs;
}

export interface JobSystem {
  reviews: BrandReviewScheduler;
  adReviews: AdReviewScheduler;
  audienceJobs: AudienceProcessingScheduler;
  ingestJobs: IngestScheduler;
  webhooks: WebhookJobs;
  queue(name: QueueName): Queue;
  /** Stops taking jobs and waits for running ones until the deadline, then forces. */
  close(deadlineMs: number): Promise<{ drained: boolean }>;
}

const connectionFor = (url: string) => ({ url, maxRetriesPerRequest: null, enableOfflineQueue: true });

/** The queues, the worker set and the schedulers of one service process. */
export async function startJobSystem(opts: JobSystemOptions): Promise<JobSystem> {
  const connection = connectionFor(opts.redisUrl);
  const queues = new Map<QueueName, Queue>();
  for (const name of Object.values(QUEUE)) {
    queues.set(name, new Queue(name, { connection, prefix: opts.prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS }));
  }
  const queue = (name: QueueName): Queue => {
    const q = queues.get(name);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  };
  await Promise.all([...queues.values()].map((q) => q.waitUntilReady()));

  const common = { delayMs: opts.reviewDelayMs, clock: opts.clock, log: opts.log };
  const brandReviews = reviewJobs({
    ...common,
    kind: 'brand',
    queue: queue(QUEUE.brandReview),
    pending: () => accountRepository.pendingReviews(opts.store),
    settle: (id, seq) => settleBrandReview(opts, id, seq),
  });
  const adReviews = reviewJobs({
    ...common,
    kind: 'ad',
    queue: queue(QUEUE.adReview),
    pending: () => pendingAdReviews(opts.store),
    settle: (id, seq) => settleAdReview(opts, id, seq),
  });
  const audienceJobs = audienceProcessingScheduler(queue(QUEUE.audienceProcessing));
  const ingestJobs = ingestScheduler(queue(QUEUE.ingest));
  const webhooks = webhookJobs({ queue: queue(QUEUE.webhookDelivery), store: opts.store, clock: opts.clock, log: opts.log, timeScale: 1, timeoutMs: 5000, ...opts.webhooks });

  const upkeep: UpkeepDeps = {
    store: opts.store,
    clock: opts.clock,
    dataDir: opts.dataDir,
    quarantineRetentionDays: opts.quarantineRetentionDays ?? RETENTION_DEFAULTS.quarantineRetentionDays,
    failedBatchRetentionDays: opts.failedBatchRetentionDays ?? RETENTION_DEFAULTS.failedBatchRetentionDays,
  };

  const workers: Worker[] = [];
  if (opts.workers !== false) {
    const processors: [QueueName, Processor, number][] = [
      [QUEUE.brandReview, brandReviews.processor(), 4],
      [QUEUE.adReview, adReviews.processor(), 4],
      [QUEUE.audienceProcessing, audienceProcessingProcessor(opts), 1],
      // One run at a time: loads write through the single DuckDB writer anyway.
      [QUEUE.ingest, ingestProcessor(opts), 1],
      [QUEUE.maintenance, maintenanceProcessor({ store: opts.store, upkeep, brandReviews, adReviews, audiences: audienceJobs, ingest: ingestJobs }), 1],
      // Attempts mostly wait on receivers (a few seconds at most each).
      [QUEUE.webhookDelivery, webhooks.processor(), 8],
    ];
    for (const [name, processor, concurrency] of processors) {
      // A worker killed mid-job leaves it active; with a short lock its job is back in the queue within seconds.
      const w = new Worker(name, processor, { connection, prefix: opts.prefix, concurrency, lockDuration: 10_000, stalledInterval: 5_000 });
      w.on('failed', (job, err) => opts.log.warn({ queue: name, jobId: job?.id, err: err.message }, 'job failed'));
      w.on('error', (err) => opts.log.error({ queue: name, err: err.message }, 'worker error'));
      workers.push(w);
    }
    await Promise.all(workers.map((w) => w.waitUntilReady()));
    // Once now, for what Redis lost while we were down; then periodically, for
    // jobs lost or exhausted while running.
    await brandReviews.reconcile();
    await adReviews.reconcile();
    await reconcileAudiences(opts.store, audienceJobs);
    await reconcileIngestRuns(opts.store, ingestJobs);
    await webhooks.start();
    for (const task of MAINTENANCE_TASKS) {
      await queue(QUEUE.maintenance).upsertJobScheduler(task, { every: taskEveryMs(task, opts.reconcileEveryMs ?? 60_000) }, { name: task, data: {} });
    }
  }

  return {
    reviews: brandReviews,
    adReviews,
    audienceJobs,
    ingestJobs,
    webhooks,
    queue,
    async close(deadlineMs) {
      await webhooks.stop();
      let timer: NodeJS.Timeout | undefined;
      const graceful = Promise.all(workers.map((w) => w.close())).then(() => true);
      const deadline = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), deadlineMs)));
      const drained = await Promise.race([graceful, deadline]);
      clearTimeout(timer);
      if (!drained) {
        opts.log.warn({ deadlineMs }, 'jobs still running at the shutdown deadline; stopping them (they will be retried)');
        await Promise.all(workers.map((w) => w.close(true)));
      }
      await Promise.all([...queues.values()].map((q) => q.close()));
      return { drained };
    },
  };
}
