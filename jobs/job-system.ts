import { Queue, Worker, type Processor } from 'bullmq';
import type { Clock } from '../src/clock.js';
import type { BrandReviewScheduler } from '../src/domain/accounts/accounts.js';
import type { AudienceProcessingScheduler } from '../src/domain/audiences/audiences.js';
import { audienceProcessingProcessor, audienceProcessingScheduler, reconcileAudiences } from './audience-processing.js';
import { MAINTENANCE_TASKS } from './payloads.js';
import type { LogSink } from '../src/logger.js';
import type { Store } from '../src/store/store.js';
import { brandReviewProcessor } from './brand-review.processor.js';
import { brandReviewScheduler, reconcileBrandReviews } from './brand-review.scheduler.js';
import { maintenanceProcessor } from './maintenance.processor.js';
import { DEFAULT_JOB_OPTIONS, QUEUE, type QueueName } from './queue-names.js';

export interface JobSystemOptions {
  redisUrl: string;
  prefix: string;
  store: Store;
  clock: Clock;
  log: LogSink;
  reviewDelayMs: number;
  dataDir: string;
  audienceMinSize: number;
  /** Start workers (serve does; a producer-only process would not). */
  workers?: boolean;
  /** How often the reconcilers run (default one minute). */
  reconcileEveryMs?: number;
}

export interface JobSystem {
  reviews: BrandReviewScheduler;
  audienceJobs: AudienceProcessingScheduler;
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

  const reviews = brandReviewScheduler(queue(QUEUE.brandReview), opts.reviewDelayMs);
  const audienceJobs = audienceProcessingScheduler(queue(QUEUE.audienceProcessing));
  const workers: Worker[] = [];
  if (opts.workers !== false) {
    const processors: [QueueName, Processor, number][] = [
      [QUEUE.brandReview, brandReviewProcessor(opts), 4],
      [QUEUE.audienceProcessing, audienceProcessingProcessor(opts), 1],
      [QUEUE.maintenance, maintenanceProcessor({ ...opts, reviews, audiences: audienceJobs }), 1],
    ];
    for (const [name, processor, concurrency] of processors) {
      const w = new Worker(name, processor, { connection, prefix: opts.prefix, concurrency });
      w.on('failed', (job, err) => opts.log.warn({ queue: name, jobId: job?.id, err: err.message }, 'job failed'));
      w.on('error', (err) => opts.log.error({ queue: name, err: err.message }, 'worker error'));
      workers.push(w);
    }
    await Promise.all(workers.map((w) => w.waitUntilReady()));
    // Once now, for what Redis lost while we were down; then periodically, for
    // jobs lost or exhausted while running.
    await reconcileBrandReviews(opts, reviews, opts.reviewDelayMs);
    await reconcileAudiences(opts.store, audienceJobs);
    for (const task of MAINTENANCE_TASKS) {
      await queue(QUEUE.maintenance).upsertJobScheduler(task, { every: opts.reconcileEveryMs ?? 60_000 }, { name: task, data: {} });
    }
  }

  return {
    reviews,
    audienceJobs,
    queue,
    async close(deadlineMs) {
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
