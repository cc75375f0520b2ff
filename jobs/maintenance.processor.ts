import { UnrecoverableError, type Job } from 'bullmq';
import type { AudienceProcessingScheduler } from '../src/domain/audiences/audiences.js';
import type { Store } from '../src/store/store.js';
import { reconcileAudiences } from './audience-processing.js';
import type { IngestScheduler } from '../src/ingest/ingest-runs.js';
import { applyRetention, compactStore, type RetentionResult, type UpkeepDeps } from '../src/ingest/upkeep.js';
import { reconcileIngestRuns } from './ingest.js';
import { MAINTENANCE_TASKS, MaintenancePayload, type MaintenanceTask } from './payloads.js';
import type { ReviewJobs } from './review-jobs.js';

const isTask = (name: string): name is MaintenanceTask => (MAINTENANCE_TASKS as readonly string[]).includes(name);

/** Periodic upkeep; each task is idempotent, so a repeated or late run is harmless. */
export function maintenanceProcessor(deps: {
  store: Store;
  upkeep: UpkeepDeps;
  brandReviews: ReviewJobs;
  adReviews: ReviewJobs;
  audiences: AudienceProcessingScheduler;
  ingest: IngestScheduler;
}) {
  return async (job: Job): Promise<{ requeued: number } | RetentionResult | { horizon: number; merged: number }> => {
    if (!isTask(job.name) || !MaintenancePayload.safeParse(job.data).success) {
      throw new UnrecoverableError(`unknown maintenance job ${job.name}`);
    }
    switch (job.name) {
      case 'reconcile-brand-reviews':
        return { requeued: await deps.brandReviews.reconcile() };
      case 'reconcile-ad-reviews':
        return { requeued: await deps.adReviews.reconcile() };
      case 'reconcile-audiences':
        return { requeued: await reconcileAudiences(deps.store, deps.audiences) };
      case 'reconcile-ingest-runs':
        return { requeued: await reconcileIngestRuns(deps.store, deps.ingest) };
      case 'ingest-retention':
        return applyRetention(deps.upkeep);
      case 'compact-store':
        return compactStore(deps.upkeep);
    }
  };
}
