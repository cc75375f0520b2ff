import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { settleBrandReview } from '../../src/domain/accounts/accounts.js';
import { settleAdReview } from '../../src/domain/ads/ads.js';
import { recordWebhookEvent } from '../../src/domain/webhooks/webhook-outbox.js';
import { createRun, describeFiles, processRun } from '../../src/ingest/ingest-runs.js';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Every event type is recorded by the change that causes it, in its
 * transaction, with one delivery per enabled endpoint subscribed to it, and
 * only when something changed.
 */
const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 10, 22, 12);
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(NOW) });
});
afterAll(() => t.close());

type Acct = { accountId: string; key: string };
const post = async (a: Acct, url: string, payload?: object) => {
  const res = await t.app.inject({ method: 'POST', url, headers: bearer(a.key), ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
};
async function endpoint(a: Acct, event_types: string[], status: 'enabled' | 'disabled' = 'enabled'): Promise<string> {
  const e = await post(a, '/v1/webhook_endpoints', { name: 'E', url: 'https://hooks.example.com/h', event_types });
  if (status === 'disabled') await post(a, `/v1/webhook_endpoints/${e.id}`, { status });
  return e.id as string;
}

interface Recorded {
  type: string;
  resource: string;
  endpoints: string[];
}
/** Events of an account in order, each with the endpoints it is to be delivered to. */
async function events(accountId: string): Promise<Recorded[]> {
  const rows = await t.store.all(
    `SELECT e.type, e.resource_id, list(d.endpoint_id ORDER BY d.endpoint_id) AS endpoints, min(d.seq) AS s
     FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id
     WHERE e.ad_account_id = $a AND NOT e.is_test GROUP BY e.id, e.type, e.resource_id ORDER BY s`,
    { a: accountId },
  );
  return rows.map((r) => ({ type: String(r['type']), resource: String(r['resource_id']), endpoints: r['endpoints'] as string[] }));
}
const payloadOf = async (accountId: string) =>
  (await t.store.all('SELECT payload FROM webhook_events WHERE ad_account_id = $a', { a: accountId })).map((r) => JSON.parse(String(r['payload'])));

async function adSetup(a: Acct): Promise<{ campaign: string; ad: string }> {
  const campaign = (await post(a, '/v1/campaigns', { name: 'Camp', status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000_000 } })).id as string;
  const group = (await post(a, '/v1/ad_groups', { campaign_id: campaign, name: 'Group', bidding_config: { max_bid_micros: 1 } })).id as string;
  const file = await insertFile(t.store, a.accountId, null);
  const ad = (await post(a, '/v1/ads', { ad_group_id: group, name: 'Ad', creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: file } })).id as string;
  return { campaign, ad };
}

let fileNo = 0;
/** Loads impressions costing `costs` (micros each) at the clock's time, as an ingest run. */
async function load(accountId: string | null, rows: object[]): Promise<string> {
  const path = join(t.dataDir, `events-${fileNo++}.ndjson`);
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const runId = await createRun(t, { accountId, origin: 'cli', files: describeFiles([path]) });
  await processRun(t, runId);
  return runId;
}
const impressions = (ad: string, costs: number[]) =>
  costs.map((cost_micros) => ({ event_id: `i${fileNo}-${Math.random()}`, type: 'impression', timestamp: t.clock.nowMs() - 60_000, ad_id: ad, cost_micros }));

describe('campaign.updated', () => {
  it('goes to each enabled endpoint subscribed to it, on every change and only then', async () => {
    const a = await makeAccount(t);
    const other = await makeAccount(t);
    const e1 = await endpoint(a, ['campaign.updated']);
    const e2 = await endpoint(a, ['ad.review.updated', 'campaign.updated']);
    await endpoint(a, ['ad.review.updated']);
    await endpoint(a, ['campaign.updated'], 'disabled');
    await endpoint(other, ['campaign.updated']);
    const c = (await post(a, '/v1/campaigns', { name: 'Spring', status: 'paused', budget: { lifetime_spend_limit_micros: 5_000_000 } })).id as string;
    expect(await events(a.accountId)).toEqual([]);

    await post(a, `/v1/campaigns/${c}`, { name: 'Spring sale' });
    await post(a, `/v1/campaigns/${c}`, { name: 'Spring sale' }); // no change: no event
    await post(a, `/v1/campaigns/${c}/activate`);
    await post(a, `/v1/campaigns/${c}/activate`); // already active
    await post(a, `/v1/campaigns/${c}`, { budget: { lifetime_spend_limit_micros: 6_000_000 } });
    const bad = await t.app.inject({ method: 'POST', url: `/v1/campaigns/${c}`, headers: bearer(a.key), payload: { name: 'x' } });
    expect(bad.statusCode).toBe(400);
    await post(a, `/v1/campaigns/${c}/pause`);
    await post(a, `/v1/campaigns/${c}/archive`);
    await post(a, `/v1/campaigns/${c}/archive`); // archived stays archived
    const endpoints = [e1, e2].sort();
    expect(await events(a.accountId)).toEqual(Array.from({ length: 5 }, () => ({ type: 'campaign.updated', resource: c, endpoints })));
    expect(await events(other.accountId)).toEqual([]);
    for (const body of await payloadOf(a.accountId)) {
      expect(Object.keys(body)).toEqual(['object', 'id', 'type', 'created_at', 'data']);
      expect(body).toEqual({ object: 'event', id: expect.stringMatching(/^evt_/), type: 'campaign.updated', created_at: Math.floor(t.clock.nowMs() / 1000), data: { id: c } });
    }
  });

  it('commits with the change or not at all (outbox in the same transaction)', async () => {
    const a = await makeAccount(t);
    await endpoint(a, ['campaign.updated']);
    await expect(
      t.store.transaction(async (tx) => {
        await recordWebhookEvent(tx, t.clock, { accountId: a.accountId, type: 'campaign.updated', resourceId: 'cmpn_x' });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await t.store.all('SELECT id FROM webhook_events WHERE ad_account_id = $a', { a: a.accountId })).toEqual([]);
    expect(await t.store.all('SELECT id FROM webhook_deliveries WHERE ad_account_id = $a', { a: a.accountId })).toEqual([]);
  });

  it('records nothing for an account without a subscribed endpoint', async () => {
    const a = await makeAccount(t);
    await endpoint(a, ['ingest_run.completed']);
    const c = (await post(a, '/v1/campaigns', { name: 'Quiet', status: 'paused', budget: { lifetime_spend_limit_micros: 5_000_000 } })).id as string;
    await post(a, `/v1/campaigns/${c}/activate`);
    expect(await t.store.all('SELECT id FROM webhook_events WHERE ad_account_id = $a', { a: a.accountId })).toEqual([]);
  });
});

describe('review events', () => {
  it('ad_account.review.updated when a brand review starts and when it is decided', async () => {
    const a = await makeAccount(t);
    const e = await endpoint(a, ['ad_account.review.updated']);
    const account = await post(a, '/v1/ad_account/brand', { name: 'New Brand' });
    expect(account.review.status).toBe('in_review');
    const seq = t.scheduled.at(-1)?.reviewSeq as number;
    expect(await settleBrandReview(t, a.accountId, seq)).toMatchObject({ review_status: 'rejected' });
    expect(await settleBrandReview(t, a.accountId, seq)).toBeUndefined();
    expect(await events(a.accountId)).toEqual([
      { type: 'ad_account.review.updated', resource: a.accountId, endpoints: [e] },
      { type: 'ad_account.review.updated', resource: a.accountId, endpoints: [e] },
    ]);
  });

  it('ad.review.updated when a changed creative goes back to review and when a review is decided', async () => {
    const a = await makeAccount(t);
    const { ad } = await adSetup(a);
    const e = await endpoint(a, ['ad.review.updated']);
    const first = t.adReviewsQueued.at(-1) as { adId: string; reviewSeq: number };
    expect(await settleAdReview(t, ad, first.reviewSeq)).toMatchObject({ review_status: 'approved' });
    await post(a, `/v1/ads/${ad}`, { name: 'Renamed' }); // not a review change
    const file = await insertFile(t.store, a.accountId, null);
    await post(a, `/v1/ads/${ad}`, { creative: { type: 'chat_card', title: 'New title', target_url: 'https://x.example', file_id: file } });
    const second = t.adReviewsQueued.at(-1) as { adId: string; reviewSeq: number };
    expect(second.reviewSeq).toBe(first.reviewSeq + 1);
    await settleAdReview(t, ad, first.reviewSeq); // stale: nothing
    await settleAdReview(t, ad, second.reviewSeq);
    expect(await events(a.accountId)).toEqual(Array.from({ length: 3 }, () => ({ type: 'ad.review.updated', resource: ad, endpoints: [e] })));
  });
});

describe('ingest_run.completed', () => {
  it('for a run of an account, succeeded or failed', async () => {
    const a = await makeAccount(t);
    const { ad } = await adSetup(a);
    const e = await endpoint(a, ['ingest_run.completed']);
    const ok = await load(a.accountId, impressions(ad, [1, 2]));
    const path = join(t.dataDir, 'broken.parquet');
    writeFileSync(path, 'not parquet');
    const broken = await createRun(t, { accountId: a.accountId, origin: 'cli', files: describeFiles([path]) });
    expect(await processRun(t, broken)).toBe('failed');
    expect(await processRun(t, broken)).toBe('failed'); // again: already finished, no second event
    expect(await events(a.accountId)).toEqual([
      { type: 'ingest_run.completed', resource: ok, endpoints: [e] },
      { type: 'ingest_run.completed', resource: broken, endpoints: [e] },
    ]);
  });

  it('for a run without an account, to every account it stored events for', async () => {
    const [a, b, c] = [await makeAccount(t), await makeAccount(t), await makeAccount(t)];
    const [adA, adB] = [(await adSetup(a)).ad, (await adSetup(b)).ad];
    const [ea, eb, ec] = [await endpoint(a, ['ingest_run.completed']), await endpoint(b, ['ingest_run.completed']), await endpoint(c, ['ingest_run.completed'])];
    const run = await load(null, [...impressions(adA, [1]), ...impressions(adB, [1])]);
    expect(await events(a.accountId)).toEqual([{ type: 'ingest_run.completed', resource: run, endpoints: [ea] }]);
    expect(await events(b.accountId)).toEqual([{ type: 'ingest_run.completed', resource: run, endpoints: [eb] }]);
    expect(await events(c.accountId)).toEqual([]);
    expect(ec).toBeTruthy();
  });
});

describe('spend_limit.reached', () => {
  it('once per local day for the daily limit, when recorded spend reaches it', async () => {
    t.clock.set(NOW);
    const a = await makeAccount(t, { timezone: 'Asia/Kolkata' });
    const { ad } = await adSetup(a);
    const e = await endpoint(a, ['spend_limit.reached']);
    await post(a, '/v1/ad_account/daily_spend_limit', { amount_micros: 1_000_000, expected_revision: 0 });
    // Spend before the limit starts (today) reaches nothing.
    await load(a.accountId, impressions(ad, [2_000_000]));
    t.clock.advance(DAY_MS);
    await load(a.accountId, impressions(ad, [600_000]));
    expect(await events(a.accountId)).toEqual([]);
    await load(a.accountId, impressions(ad, [400_000]));
    await load(a.accountId, impressions(ad, [700_000]));
    const reached = { type: 'spend_limit.reached', resource: a.accountId, endpoints: [e] };
    expect(await events(a.accountId)).toEqual([reached]);
    t.clock.advance(DAY_MS);
    await load(a.accountId, impressions(ad, [999_999]));
    expect(await events(a.accountId)).toEqual([reached]);
    await load(a.accountId, impressions(ad, [1]));
    expect(await events(a.accountId)).toEqual([reached, reached]);
    t.clock.set(NOW);
  });

  it('once for a date range window, data.id naming it', async () => {
    t.clock.set(NOW);
    const a = await makeAccount(t);
    const { ad } = await adSetup(a);
    const e = await endpoint(a, ['spend_limit.reached']);
    const w = await post(a, '/v1/ad_account/spend_limit_windows', { start_date: '2026-11-22', end_date: '2026-11-29', amount_micros: 3_000_000 });
    await load(a.accountId, impressions(ad, [1_000_000]));
    t.clock.advance(DAY_MS);
    await load(a.accountId, impressions(ad, [1_500_000]));
    expect(await events(a.accountId)).toEqual([]);
    await load(a.accountId, impressions(ad, [600_000]));
    await load(a.accountId, impressions(ad, [600_000]));
    expect(await events(a.accountId)).toEqual([{ type: 'spend_limit.reached', resource: w.window_id, endpoints: [e] }]);
    t.clock.set(NOW);
  });
});
