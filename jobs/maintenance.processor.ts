import { UnrecoverableError, type Job } from 'bullmq';
import type { Clock } from '../src/clock.js';
import type { LogSink } from '../src/logger.js';
import type { Store } from '../src/store/store.js';
import { reconcileBrandReviews, type brandReviewScheduler } from './brand-review.scheduler.js';
import type { AudienceProcessingScheduler } from '../src/domain/audiences/audiences.js';
import { reconcileAudiences } from './audience-processing.js';
import { MAINTENANCE_TASKS, MaintenancePayload, type MaintenanceTask } from './payloads.js';

const isTask = (name: string): name is MaintenanceTask => (MAINTENANCE_TASKS as readonly string[]).includes(name);

/** Periodic upkeep; each task is idempotent, so a repeated or late run is harmless. */
export function maintenanceProcessor(deps: {
  store: Store;
  clock: Clock;
  log: LogSink;
  reviews: ReturnType<typeof brandReviewScheduler>;
  reviewDelayMs: number;
  audiences: AudienceProcessingScheduler;
}) {
  return async (job: Job): Promise<{ requeued: number }> => {
    if (!isTask(job.name) || !MaintenancePayload.safeParse(job.data).success) {
      throw new UnrecoverableError(`unknown maintenance job ${job.name}`);
    }
    switch (job.name) {
      case 'reconcile-brand-reviews':
        return { requeued: await reconcileBrandReviews(deps, deps.reviews, deps.reviewDelayMs) };
      case 'reconcile-audiences':
        return { requeued: await reconcileAudiences(deps.store, deps.audiences) };
    }
  };
}
