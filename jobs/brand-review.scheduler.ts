import type { Queue } from 'bullmq';
import type { Clock } from '../src/clock.js';
import type { BrandReviewScheduler } from '../src/domain/accounts/accounts.js';
import type { LogSink } from '../src/logger.js';
import { accountRepository } from '../src/store/repositories/account-repository.js';
import type { Store } from '../src/store/store.js';
import { BrandReviewPayload } from './payloads.js';
import { jobId } from './queue-names.js';

/**
 * Queues brand reviews `delayMs` after submission. The job id is derived from
 * the account and the review number, so queueing the same review twice (a
 * retry, the reconciler) adds one job.
 */
export function brandReviewScheduler(queue: Queue, delayMs: number): BrandReviewScheduler & {
  scheduleAt(accountId: string, reviewSeq: number, delay: number): Promise<void>;
} {
  const scheduleAt = async (accountId: string, reviewSeq: number, delay: number): Promise<void> => {
    const payload = BrandReviewPayload.parse({ accountId, reviewSeq });
    const id = jobId('review', accountId, reviewSeq);
    // A job that used up its attempts keeps its id; adding again would be a no-op, so retry it.
    const existing = await queue.getJob(id);
    if (existing && (await existing.isFailed())) await existing.retry('failed');
    else await queue.add('review', payload, { jobId: id, delay: Math.max(0, delay) });
  };
  return {
    schedule: (accountId, reviewSeq) => scheduleAt(accountId, reviewSeq, delayMs),
    scheduleAt,
  };
}

/**
 * Redis is never the only copy: reviews that are pending in DuckDB get their
 * job again (e.g. after Redis lost its data), due when it would have been.
 */
export async function reconcileBrandReviews(
  deps: { store: Store; clock: Clock; log: LogSink },
  scheduler: ReturnType<typeof brandReviewScheduler>,
  delayMs: number,
): Promise<number> {
  const pending = await accountRepository.pendingReviews(deps.store);
  for (const p of pending) {
    const due = (p.review_requested_at_ms ?? deps.clock.nowMs()) + delayMs;
    await scheduler.scheduleAt(p.id, p.review_seq, due - deps.clock.nowMs());
  }
  if (pending.length > 0) deps.log.info({ count: pending.length }, 're-queued pending brand reviews');
  return pending.length;
}
