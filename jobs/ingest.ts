import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import type { Clock } from '../src/clock.js';
import { INGEST_BATCH_RUNS } from '../src/ingest/event-contract.js';
import { pendingRunIds, processRun, type IngestScheduler } from '../src/ingest/ingest-runs.js';
import type { LogSink } from '../src/logger.js';
import type { Store } from '../src/store/store.js';
import { enqueueOnce } from './enqueue-once.js';
import { IngestPayload } from './payloads.js';
import { jobId } from './queue-names.js';

/** One job per run (deterministic id); a repeated job resumes or no-ops, as processRun does. */
export function ingestScheduler(queue: Queue): IngestScheduler {
  return { schedule: (runId) => enqueueOnce(queue, 'ingest', jobId('ingest', runId), IngestPayload.parse({ runId })) };
}

/** A job may load its run with other queued API runs (`ingestBatchRuns`); their own jobs then find them done. */
export function ingestProcessor(deps: { store: Store; clock: Clock; log: LogSink; ingestChunkLines?: number; ingestBatchRuns?: number }) {
  return async (job: Job): Promise<{ status: string | null }> => {
    const parsed = IngestPayload.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid ingest payload: ${parsed.error.message}`);
    const status = await processRun({ ...deps, ingestBatchRuns: deps.ingestBatchRuns ?? INGEST_BATCH_RUNS }, parsed.data.runId);
    deps.log.info({ runId: parsed.data.runId, status }, 'ingest run processed');
    return { status: status ?? null };
  };
}

/** Runs queued or interrupted in DuckDB get their job again. */
export async function reconcileIngestRuns(store: Store, scheduler: IngestScheduler): Promise<number> {
  const ids = await pendingRunIds(store);
  for (const id of ids) await scheduler.schedule(id);
  return ids.length;
}
