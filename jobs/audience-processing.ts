import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import type { Clock } from '../src/clock.js';
import { pendingAudienceIds, processAudience, type AudienceProcessingScheduler } from '../src/domain/audiences/audiences.js';
import type { LogSink } from '../src/logger.js';
import type { Store } from '../src/store/store.js';
import { AudienceProcessingPayload } from './payloads.js';
import { enqueueOnce } from './enqueue-once.js';
import { jobId } from './queue-names.js';

/** One job per audience (deterministic id): queueing twice adds one job. */
export function audienceProcessingScheduler(queue: Queue): AudienceProcessingScheduler {
  return {
    async schedule(audienceId) {
      await enqueueOnce(queue, 'process', jobId('audience', audienceId), AudienceProcessingPayload.parse({ audienceId }));
    },
  };
}

export interface AudienceJobDeps {
  store: Store;
  clock: Clock;
  log: LogSink;
  dataDir: string;
  audienceMinSize: number;
}

export function audienceProcessingProcessor(deps: AudienceJobDeps) {
  return async (job: Job): Promise<{ status: string | null }> => {
    const parsed = AudienceProcessingPayload.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid audience-processing payload: ${parsed.error.message}`);
    const out = await processAudience({ ...deps, minSize: deps.audienceMinSize }, parsed.data.audienceId);
    if (out) deps.log.info({ audienceId: out.id, status: out.status, size: out.size }, 'audience processed');
    return { status: out?.status ?? null };
  };
}

/** Audiences still processing in DuckDB get their job again (Redis is never the only copy). */
export async function reconcileAudiences(store: Store, scheduler: AudienceProcessingScheduler): Promise<number> {
  const ids = await pendingAudienceIds(store);
  for (const id of ids) await scheduler.schedule(id);
  return ids.length;
}
