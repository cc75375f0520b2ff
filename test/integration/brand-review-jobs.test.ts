import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { startJobSystem, type JobSystem } from '../../jobs/job-system.js';
import { QUEUE } from '../../jobs/queue-names.js';
import { ManualClock } from '../../src/clock.js';
import { bearer, deleteRedisPrefix, makeAccount, quietLog, redisUrl, uniquePrefix } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

/** Brand reviews through real Redis and BullMQ workers, settled by the job. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(reviewDelayMs: number): Promise<{ t: TestApp; jobs: JobSystem; prefix: string; clock: ManualClock }> {
  const prefix = uniquePrefix();
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
  let jobs: JobSystem | undefined;
  const t = await startTestApp({
    clock,
    reviews: { schedule: (accountId, seq) => (jobs as JobSystem).reviews.schedule(accountId, seq) },
  });
  jobs = await startJobSystem({ redisUrl: redisUrl(), prefix, store: t.store, clock, log: quietLog, dataDir: t.dataDir, audienceMinSize: 25_000, reviewDelayMs });
  // Run last-in first-out: workers close, then the app and store, then the keys go.
  cleanups.push(
    () => deleteRedisPrefix(redisUrl(), prefix),
    () => t.close(),
    async () => {
      await jobs?.close(5000);
    },
  );
  return { t, jobs, prefix, clock };
}

async function pollReview(t: TestApp, key: string, until: (status: string) => boolean): Promise<{ status: string; reason?: string }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const review = (await t.app.inject({ url: '/v1/ad_account', headers: bearer(key) })).json().review;
    if (until(review.status)) return review;
    if (Date.now() > deadline) throw new Error(`review still ${review.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('brand review job', () => {
  it('moves in_review to rejected (missing_favicon) when the account has no favicon', async () => {
    const { t } = await setup(200);
    const { key } = await makeAccount(t);
    const res = await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(key), payload: { name: 'No Icon Inc' } });
    expect(res.json().review).toEqual({ status: 'in_review' });
    expect(await pollReview(t, key, (s) => s !== 'in_review')).toEqual({ status: 'rejected', reason: 'missing_favicon' });
  });

  it('moves in_review to approved when a favicon is set', async () => {
    const { t } = await setup(200);
    const { accountId, key } = await makeAccount(t);
    const favicon = await insertFile(t.store, accountId, 'account_favicon');
    await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(key), payload: { favicon_file_id: favicon } });
    expect(await pollReview(t, key, (s) => s !== 'in_review')).toEqual({ status: 'approved' });
  });

  it('waits the configured delay, and a newer submission supersedes the older job', async () => {
    const { t, jobs } = await setup(1500);
    const { accountId, key } = await makeAccount(t);
    await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(key), payload: { name: 'First' } });
    const favicon = await insertFile(t.store, accountId, 'account_favicon');
    await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(key), payload: { favicon_file_id: favicon } });
    const queue = jobs.queue(QUEUE.brandReview);
    expect((await queue.getDelayed()).map((j) => j.data)).toEqual(
      expect.arrayContaining([
        { subjectId: accountId, reviewSeq: 1 },
        { subjectId: accountId, reviewSeq: 2 },
      ]),
    );
    // Still pending well inside the delay.
    expect((await t.app.inject({ url: '/v1/ad_account', headers: bearer(key) })).json().review.status).toBe('in_review');
    // The first job finds a newer review and leaves it; the second decides it.
    expect(await pollReview(t, key, (s) => s !== 'in_review')).toEqual({ status: 'approved' });
    const seq = await t.store.get('SELECT review_seq FROM ad_accounts WHERE id = $id', { id: accountId });
    expect(seq).toEqual({ review_seq: 2 });
  });

  it('re-queues pending reviews that Redis lost, on start', async () => {
    const prefix = uniquePrefix();
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    const t = await startTestApp({ clock });
    cleanups.push(() => deleteRedisPrefix(redisUrl(), prefix), () => t.close());
    const { key } = await makeAccount(t);
    // The app records the submission in DuckDB; its job never reaches Redis.
    await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(key), payload: { name: 'Lost Job' } });
    expect(t.scheduled).toHaveLength(1);
    const lost = new Queue(QUEUE.brandReview, { connection: { url: redisUrl() }, prefix });
    expect(await lost.count()).toBe(0);
    await lost.close();
    const jobs = await startJobSystem({ redisUrl: redisUrl(), prefix, store: t.store, clock, log: quietLog, dataDir: t.dataDir, audienceMinSize: 25_000, reviewDelayMs: 100 });
    cleanups.push(async () => {
      await jobs.close(5000);
    });
    expect(await pollReview(t, key, (s) => s !== 'in_review')).toEqual({ status: 'rejected', reason: 'missing_favicon' });
  });

  it('the periodic reconciler re-queues a review whose job vanished while running', async () => {
    const prefix = uniquePrefix();
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    let jobs: JobSystem | undefined;
    const t = await startTestApp({ clock, reviews: { schedule: (a, s) => (jobs as JobSystem).reviews.schedule(a, s) } });
    jobs = await startJobSystem({ redisUrl: redisUrl(), prefix, store: t.store, clock, log: quietLog, dataDir: t.dataDir, audienceMinSize: 25_000, reviewDelayMs: 60_000, reconcileEveryMs: 200 });
    cleanups.push(() => deleteRedisPrefix(redisUrl(), prefix), () => t.close(), async () => void (await jobs?.close(5000)));
    const { key } = await makeAccount(t);
    await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(key), payload: { name: 'Vanishing' } });
    const queue = jobs.queue(QUEUE.brandReview);
    const [delayed] = await queue.getDelayed();
    expect(delayed).toBeDefined();
    await delayed?.remove();
    // The review is due when the clock passes its delay; the reconciler finds it pending and re-queues it.
    clock.advance(61_000);
    expect(await pollReview(t, key, (s) => s !== 'in_review')).toEqual({ status: 'rejected', reason: 'missing_favicon' });
  });

  it('a malformed payload fails without retries', async () => {
    const { jobs } = await setup(0);
    const queue = jobs.queue(QUEUE.brandReview);
    const job = await queue.add('review', { subjectId: '', reviewSeq: 'x' }, { attempts: 5 });
    const deadline = Date.now() + 10_000;
    while ((await job.getState()) !== 'failed' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const failed = await queue.getJob(job.id as string);
    expect(await failed?.getState()).toBe('failed');
    expect(failed?.attemptsMade).toBe(1);
  });
});
