import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import type { Clock } from '../src/clock.js';
import type { LogSink } from '../src/logger.js';
import { enqueueOnce } from './enqueue-once.js';
import { ReviewPayload } from './payloads.js';
import { jobId } from './queue-names.js';

/**
 * Delayed reviews (brand reviews of accounts, creative reviews of ads): the
 * subject row records `in_review` with a review number first; the job, due
 * `delayMs` later, settles that review number only, so a newer submission
 * supersedes an older job and a repeated job is a no-op.
 */
export interface PendingReview {
  id: string;
  review_seq: number;
  review_requested_at_ms: number | null;
}

export interface ReviewJobs {
  schedule(subjectId: string, reviewSeq: number): Promise<void>;
  /** Re-queues every review pending in DuckDB (Redis is never the only copy), due when it would have been. */
  reconcile(): Promise<number>;
  processor(): (job: Job) => Promise<{ decided: boolean; status?: string }>;
}

export function reviewJobs(opts: {
  kind: 'brand' | 'ad';
  queue: Queue;
  delayMs: number;
  clock: Clock;
  log: LogSink;
  pending: () => Promise<PendingReview[]>;
  settle: (subjectId: string, reviewSeq: number) => Promise<{ review_status: string; review_reason: string | null } | undefined>;
}): ReviewJobs {
  const scheduleAt = (subjectId: string, reviewSeq: number, delay: number) =>
    enqueueOnce(opts.queue, 'review', jobId(opts.kind, subjectId, reviewSeq), ReviewPayload.parse({ subjectId, reviewSeq }), delay);
  return {
    schedule: (subjectId, reviewSeq) => scheduleAt(subjectId, reviewSeq, opts.delayMs),
    async reconcile() {
      const pending = await opts.pending();
      const now = opts.clock.nowMs();
      for (const p of pending) await scheduleAt(p.id, p.review_seq, (p.review_requested_at_ms ?? now) + opts.delayMs - now);
      if (pending.length > 0) opts.log.info({ kind: opts.kind, count: pending.length }, 're-queued pending reviews');
      return pending.length;
    },
    processor: () => async (job) => {
      const parsed = ReviewPayload.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`invalid ${opts.kind} review payload: ${parsed.error.message}`);
      const settled = await opts.settle(parsed.data.subjectId, parsed.data.reviewSeq);
      if (!settled) return { decided: false };
      opts.log.info({ kind: opts.kind, id: parsed.data.subjectId, status: settled.review_status, reason: settled.review_reason }, 'review decided');
      return { decided: true, status: settled.review_status };
    },
  };
}
