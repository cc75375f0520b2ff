import { UnrecoverableError, type Job } from 'bullmq';
import type { Clock } from '../src/clock.js';
import { settleBrandReview } from '../src/domain/accounts/accounts.js';
import type { LogSink } from '../src/logger.js';
import type { Store } from '../src/store/store.js';
import { BrandReviewPayload } from './payloads.js';

export interface BrandReviewResult {
  decided: boolean;
  status?: string;
}

/** Settles one brand review; a stale or repeated job is a harmless no-op. */
export function brandReviewProcessor(deps: { store: Store; clock: Clock; log: LogSink }) {
  return async (job: Job): Promise<BrandReviewResult> => {
    const parsed = BrandReviewPayload.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid brand-review payload: ${parsed.error.message}`);
    const account = await settleBrandReview(deps, parsed.data.accountId, parsed.data.reviewSeq);
    if (!account) return { decided: false };
    deps.log.info({ accountId: account.id, status: account.review_status, reason: account.review_reason }, 'brand review decided');
    return { decided: true, status: account.review_status };
  };
}
