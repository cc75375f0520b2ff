import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startJobSystem, type JobSystem } from '../../jobs/job-system.js';
import { ManualClock } from '../../src/clock.js';
import { bearer, deleteRedisPrefix, makeAccount, quietLog, redisUrl, uniquePrefix } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };
beforeAll(async () => {
  t = await startTestApp();
  a = await makeAccount(t);
  b = await makeAccount(t);
});
afterAll(() => t.close());

const post = (app: TestApp, key: string, url: string, payload?: unknown) =>
  app.app.inject({ method: 'POST', url, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });
const get = (app: TestApp, key: string, url: string) => app.app.inject({ url, headers: bearer(key) });
const campaignBody = (bidding_type = 'impressions') => ({ name: 'Camp', status: 'active', budget: { lifetime_spend_limit_micros: 2_000_000 }, bidding_type });

async function campaign(app: TestApp, key: string, bidding = 'impressions'): Promise<string> {
  const res = await post(app, key, '/v1/campaigns', campaignBody(bidding));
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}
async function adGroup(app: TestApp, key: string, campaignId: string): Promise<string> {
  const res = await post(app, key, '/v1/ad_groups', { campaign_id: campaignId, name: 'Group', bidding_config: { max_bid_micros: 500_000 } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}
const creative = (fileId: string, extra: object = {}) => ({ type: 'chat_card', title: 'Fresh deals', body: 'Up to 50% off', target_url: 'https://shop.example/sale', file_id: fileId, ...extra });

describe('ad groups', () => {
  it('derive billing from the campaign and return the documented shape', async () => {
    const imp = await campaign(t, a.key);
    const res = await post(t, a.key, '/v1/ad_groups', { campaign_id: imp, name: 'Shoppers', context_hints: ['running shoes'], bidding_config: { max_bid_micros: 100 } });
    expect(res.json()).toEqual({
      id: expect.stringMatching(/^adgrp_/),
      object: 'ad_group',
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      campaign_id: imp,
      name: 'Shoppers',
      description: null,
      context_hints: ['running shoes'],
      status: 'active',
      bidding_config: { billing_event_type: 'impression', max_bid_micros: 100 },
    });
    const clicks = await campaign(t, a.key, 'clicks');
    const g = await post(t, a.key, '/v1/ad_groups', { campaign_id: clicks, name: 'Clickers', bidding_config: { max_bid_micros: 100 } });
    expect(g.json().bidding_config.billing_event_type).toBe('click');
    const wrong = await post(t, a.key, '/v1/ad_groups', { campaign_id: clicks, name: 'Clickers', bidding_config: { billing_event_type: 'impression', max_bid_micros: 100 } });
    expect(wrong.json().error).toMatchObject({ code: 'invalid_value', param: 'bidding_config.billing_event_type' });
  });

  it.each([
    [{ name: 'Group', bidding_config: { max_bid_micros: 1 } }, 400, 'missing_required_parameter', 'campaign_id'],
    [{ campaign_id: 'CAMP', name: 'ab', bidding_config: { max_bid_micros: 1 } }, 400, 'string_below_min_length', 'name'],
    [{ campaign_id: 'CAMP', name: 'Group', bidding_config: { max_bid_micros: 0 } }, 400, 'integer_below_min_value', 'bidding_config.max_bid_micros'],
    [{ campaign_id: 'CAMP', name: 'Group', bidding_config: { max_bid_micros: 100_000_001 } }, 400, 'integer_above_max_value', 'bidding_config.max_bid_micros'],
    [{ campaign_id: 'CAMP', name: 'Group' }, 400, 'missing_required_parameter', 'bidding_config'],
    [{ campaign_id: 'CAMP', name: 'Group', context_hints: 'shoes', bidding_config: { max_bid_micros: 1 } }, 400, 'invalid_type', 'context_hints'],
    [{ campaign_id: 'cmpn_nope', name: 'Group', bidding_config: { max_bid_micros: 1 } }, 404, 'resource_missing', 'campaign_id'],
  ])('refuses %j', async (payload, status, code, param) => {
    const c = await campaign(t, a.key);
    const body = JSON.parse(JSON.stringify(payload).replace('"CAMP"', JSON.stringify(c)));
    const res = await post(t, a.key, '/v1/ad_groups', body);
    expect(res.statusCode).toBe(status);
    expect(res.json().error).toMatchObject({ code, param });
  });

  it('update, status moves, archived is final, campaign fixed', async () => {
    const c = await campaign(t, a.key);
    const g = await adGroup(t, a.key, c);
    const u = await post(t, a.key, `/v1/ad_groups/${g}`, { name: 'Renamed', bidding_config: { max_bid_micros: 42 } });
    expect(u.json()).toMatchObject({ name: 'Renamed', bidding_config: { billing_event_type: 'impression', max_bid_micros: 42 } });
    const other = await campaign(t, a.key);
    expect((await post(t, a.key, `/v1/ad_groups/${g}`, { campaign_id: other })).json().error).toMatchObject({ code: 'immutable_parameter', param: 'campaign_id' });
    expect((await post(t, a.key, `/v1/ad_groups/${g}/pause`)).json().status).toBe('paused');
    expect((await post(t, a.key, `/v1/ad_groups/${g}/activate`)).json().status).toBe('active');
    expect((await post(t, a.key, `/v1/ad_groups/${g}/archive`)).json().status).toBe('archived');
    expect((await post(t, a.key, `/v1/ad_groups/${g}/activate`)).json().error).toMatchObject({ code: 'resource_archived' });
    // No new ads in an archived group, and no new groups in an archived campaign.
    const file = await insertFile(t.store, a.accountId, null);
    expect((await post(t, a.key, '/v1/ads', { ad_group_id: g, name: 'Ad', creative: creative(file) })).json().error).toMatchObject({ code: 'resource_archived', param: 'ad_group_id' });
    await post(t, a.key, `/v1/campaigns/${c}/archive`);
    expect((await post(t, a.key, '/v1/ad_groups', { campaign_id: c, name: 'Late', bidding_config: { max_bid_micros: 1 } })).json().error).toMatchObject({ code: 'resource_archived' });
  });

  it('list by campaign or for the whole account, and stay private', async () => {
    const c1 = await campaign(t, a.key);
    const c2 = await campaign(t, a.key);
    const g1 = await adGroup(t, a.key, c1);
    const g2 = await adGroup(t, a.key, c2);
    const byCampaign = (await get(t, a.key, `/v1/ad_groups?campaign_id=${c1}`)).json();
    expect(byCampaign.data.map((g: { id: string }) => g.id)).toEqual([g1]);
    const all = (await get(t, a.key, '/v1/ad_groups?limit=500')).json().data.map((g: { id: string }) => g.id);
    expect(all).toEqual(expect.arrayContaining([g1, g2]));
    expect((await get(t, b.key, `/v1/ad_groups/${g1}`)).statusCode).toBe(404);
    expect((await get(t, b.key, `/v1/ad_groups?campaign_id=${c1}`)).json().data).toEqual([]);
    expect((await post(t, b.key, '/v1/ad_groups', { campaign_id: c1, name: 'Sneaky', bidding_config: { max_bid_micros: 1 } })).statusCode).toBe(404);
  });
});

describe('ads', () => {
  it('create in review with the documented shape; image_url points at the file', async () => {
    const g = await adGroup(t, a.key, await campaign(t, a.key));
    const file = await insertFile(t.store, a.accountId, null);
    const res = await post(t, a.key, '/v1/ads', { ad_group_id: g, name: 'Sale ad', status: 'active', creative: creative(file) });
    expect(res.statusCode, res.body).toBe(200);
    const ad = res.json();
    expect(ad).toEqual({
      id: expect.stringMatching(/^ad_/),
      object: 'ad',
      name: 'Sale ad',
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      ad_group_id: g,
      campaign_id: expect.stringMatching(/^cmpn_/),
      status: 'active',
      review_status: 'in_review',
      creative: { ...creative(file), image_url: expect.stringMatching(new RegExp(`/v1/files/${file}/content$`)) },
    });
    expect(t.adReviewsQueued).toContainEqual({ adId: ad.id, reviewSeq: 1 });
  });

  it.each([
    [{ title: 'ab' }, 'string_below_min_length', 'creative.title'],
    [{ title: 'x'.repeat(51) }, 'string_above_max_length', 'creative.title'],
    [{ body: 'x'.repeat(101) }, 'string_above_max_length', 'creative.body'],
    [{ target_url: 'not a url' }, 'invalid_value', 'creative.target_url'],
    [{ target_url: `https://x.example/${'a'.repeat(2048)}` }, 'string_above_max_length', 'creative.target_url'],
    [{ type: 'banner' }, 'invalid_value', 'creative.type'],
    [{ file_id: undefined }, 'missing_required_parameter', 'creative.file_id'],
  ])('refuses creative %j', async (extra, code, param) => {
    const g = await adGroup(t, a.key, await campaign(t, a.key));
    const file = await insertFile(t.store, a.accountId, null);
    const res = await post(t, a.key, '/v1/ads', { ad_group_id: g, name: 'Ad', creative: creative(file, extra) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code, param });
  });

  it('needs a creative image of the account uploaded with no purpose', async () => {
    const g = await adGroup(t, a.key, await campaign(t, a.key));
    const favicon = await insertFile(t.store, a.accountId, 'account_favicon');
    expect((await post(t, a.key, '/v1/ads', { ad_group_id: g, name: 'Ad', creative: creative(favicon) })).json().error).toMatchObject({ code: 'invalid_value', param: 'creative.file_id' });
    const theirs = await insertFile(t.store, b.accountId, null);
    const res = await post(t, a.key, '/v1/ads', { ad_group_id: g, name: 'Ad', creative: creative(theirs) });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 'resource_missing', param: 'creative.file_id' });
  });

  it('a changed creative goes back to review; name and status changes do not', async () => {
    const g = await adGroup(t, a.key, await campaign(t, a.key));
    const file = await insertFile(t.store, a.accountId, null);
    const ad = (await post(t, a.key, '/v1/ads', { ad_group_id: g, name: 'Ad', creative: creative(file) })).json();
    await t.store.run("UPDATE ads SET review_status = 'approved' WHERE id = $id", { id: ad.id });
    const before = t.adReviewsQueued.length;
    expect((await post(t, a.key, `/v1/ads/${ad.id}`, { name: 'Renamed', status: 'paused' })).json()).toMatchObject({ name: 'Renamed', status: 'paused', review_status: 'approved' });
    expect((await post(t, a.key, `/v1/ads/${ad.id}`, { creative: creative(file) })).json().review_status).toBe('approved');
    const changed = (await post(t, a.key, `/v1/ads/${ad.id}`, { creative: creative(file, { title: 'New title' }) })).json();
    expect(changed).toMatchObject({ review_status: 'in_review', creative: { title: 'New title' } });
    expect(t.adReviewsQueued.slice(before)).toEqual([{ adId: ad.id, reviewSeq: 2 }]);
    expect((await post(t, a.key, `/v1/ads/${ad.id}`, { ad_group_id: 'adgrp_other' })).json().error).toMatchObject({ code: 'immutable_parameter' });
    expect((await post(t, a.key, `/v1/ads/${ad.id}/archive`)).json().status).toBe('archived');
    expect((await post(t, a.key, `/v1/ads/${ad.id}`, { name: 'Zombie' })).json().error).toMatchObject({ code: 'resource_archived' });
  });

  it('lists by ad group and stays private', async () => {
    const g = await adGroup(t, a.key, await campaign(t, a.key));
    const file = await insertFile(t.store, a.accountId, null);
    const ad = (await post(t, a.key, '/v1/ads', { ad_group_id: g, name: 'Ad', creative: creative(file) })).json();
    expect((await get(t, a.key, `/v1/ads?ad_group_id=${g}`)).json().data.map((x: { id: string }) => x.id)).toEqual([ad.id]);
    expect((await get(t, b.key, `/v1/ads/${ad.id}`)).statusCode).toBe(404);
    expect((await post(t, b.key, `/v1/ads/${ad.id}/pause`)).statusCode).toBe(404);
    expect((await post(t, b.key, '/v1/ads', { ad_group_id: g, name: 'Ad', creative: creative(file) })).statusCode).toBe(404);
  });
});

describe('ad review job (real Redis)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  });

  it('approves https creatives and rejects others, after the delay', async () => {
    const prefix = uniquePrefix();
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    let jobs: JobSystem | undefined;
    const app = await startTestApp({ clock, adReviews: { schedule: (id, seq) => (jobs as JobSystem).adReviews.schedule(id, seq) } });
    jobs = await startJobSystem({ redisUrl: redisUrl(), prefix, store: app.store, clock, log: quietLog, dataDir: app.dataDir, audienceMinSize: 1, reviewDelayMs: 100 });
    // Run last-in first-out: workers close, then the app and store, then the keys go.
    cleanups.push(() => deleteRedisPrefix(redisUrl(), prefix), () => app.close(), async () => void (await jobs?.close(5000)));
    const acct = await makeAccount(app);
    const g = await adGroup(app, acct.key, await campaign(app, acct.key));
    const file = await insertFile(app.store, acct.accountId, null);
    const good = (await post(app, acct.key, '/v1/ads', { ad_group_id: g, name: 'Good', creative: creative(file) })).json();
    const bad = (await post(app, acct.key, '/v1/ads', { ad_group_id: g, name: 'Bad', creative: creative(file, { target_url: 'http://shop.example' }) })).json();
    const settle = async (id: string) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const ad = (await get(app, acct.key, `/v1/ads/${id}`)).json();
        if (ad.review_status !== 'in_review') return ad;
        if (Date.now() > deadline) throw new Error('still in review');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    expect(await settle(good.id)).toMatchObject({ review_status: 'approved' });
    expect(await settle(bad.id)).toMatchObject({ review_status: 'rejected', review_reason: 'insecure_target_url' });
  });
});
