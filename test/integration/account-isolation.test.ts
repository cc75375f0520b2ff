import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAudience } from '../../src/domain/audiences/audiences.js';
import { bearer, makeAccount } from '../support/context.js';
import { emails, insertCustomerList, insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * One of every object in account A; account B's key reaches none of them
 * through any route: reads, updates, transitions and sub-routes answer 404
 * exactly like a missing object, and B's lists never show them.
 */
let t: TestApp;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp({ env: { ADSVC_AUDIENCE_MIN_SIZE: '1' } });
  a = await makeAccount(t);
  b = await makeAccount(t);
  const post = async (url: string, payload: object, field = 'id') => {
    const res = await t.app.inject({ method: 'POST', url, headers: bearer(a.key), payload });
    expect(res.statusCode, res.body).toBe(200);
    return res.json()[field] as string;
  };
  ids['campaign'] = await post('/v1/campaigns', { name: 'Private', status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 } });
  ids['ad_group'] = await post('/v1/ad_groups', { campaign_id: ids['campaign'], name: 'Private', bidding_config: { max_bid_micros: 1 } });
  ids['file'] = await insertFile(t.store, a.accountId, null);
  ids['ad'] = await post('/v1/ads', { ad_group_id: ids['ad_group'], name: 'Private', creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: ids['file'] } });
  ids['event_setting'] = await post('/v1/conversions/event_settings', { name: 'Goal', event_type: 'order_created' });
  ids['product_feed'] = await post('/v1/product_feeds', { name: 'Feed' });
  const list = await insertCustomerList(t.store, t.dataDir, a.accountId, emails('iso', 3));
  ids['custom_audience'] = await post('/v1/custom_audiences', { name: 'Aud', ...list.body });
  await processAudience({ store: t.store, clock: t.clock, dataDir: t.dataDir, minSize: 1 }, ids['custom_audience']);
});
afterAll(() => t.close());

const routes = (): [string, string, object?][] => [
  ['GET', `/v1/campaigns/${ids['campaign']}`],
  ['POST', `/v1/campaigns/${ids['campaign']}`, { name: 'Taken' }],
  ['POST', `/v1/campaigns/${ids['campaign']}/pause`],
  ['POST', `/v1/campaigns/${ids['campaign']}/archive`],
  ['GET', `/v1/ad_groups/${ids['ad_group']}`],
  ['POST', `/v1/ad_groups/${ids['ad_group']}`, { name: 'Taken' }],
  ['POST', `/v1/ad_groups/${ids['ad_group']}/activate`],
  ['GET', `/v1/ads/${ids['ad']}`],
  ['POST', `/v1/ads/${ids['ad']}`, { name: 'Taken' }],
  ['POST', `/v1/ads/${ids['ad']}/archive`],
  ['GET', `/v1/files/${ids['file']}`],
  ['GET', `/v1/files/${ids['file']}/content`],
  ['GET', `/v1/conversions/event_settings/${ids['event_setting']}`],
  ['POST', `/v1/conversions/event_settings/${ids['event_setting']}/archive`],
  ['GET', `/v1/product_feeds/${ids['product_feed']}`],
  ['POST', `/v1/product_feeds/${ids['product_feed']}/items`, { items: [{ item_id: 'x' }] }],
  ['GET', `/v1/custom_audiences/${ids['custom_audience']}`],
  ['POST', `/v1/custom_audiences/${ids['custom_audience']}/archive`],
  // Objects named inside B's own requests.
  ['POST', '/v1/ad_groups', { campaign_id: ids['campaign'], name: 'Sneaky', bidding_config: { max_bid_micros: 1 } }],
  ['POST', '/v1/ads', { ad_group_id: ids['ad_group'], name: 'Sneaky', creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: ids['file'] } }],
  ['POST', '/v1/campaigns', { name: 'Sneaky', status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 }, mode: 'product_feed', product_feed_id: ids['product_feed'] }],
  ['POST', '/v1/campaigns', { name: 'Sneaky', status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 }, targeting: { custom_audiences: { ids: [ids['custom_audience']] } } }],
  ['POST', '/v1/campaigns', { name: 'Sneaky', status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 }, bidding_type: 'conversions', conversion_event_setting_ids: [ids['event_setting']] }],
  ['POST', '/v1/ad_account/brand', { favicon_file_id: ids['file'] }],
];

describe("another account's objects", () => {
  it('answer 404 resource_missing on every route, and leak nothing in the message', async () => {
    for (const [method, url, payload] of routes()) {
      const res = await t.app.inject({ method: method as 'GET' | 'POST', url, headers: bearer(b.key), ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
      expect(res.json().error.code).toBe('resource_missing');
      expect(res.body).not.toContain(a.accountId);
    }
  });

  it("never appear in the other account's lists", async () => {
    for (const url of ['/v1/campaigns', '/v1/ad_groups', '/v1/ads', '/v1/conversions/event_settings', '/v1/product_feeds', '/v1/custom_audiences']) {
      const res = await t.app.inject({ url: `${url}?limit=500`, headers: bearer(b.key) });
      expect(res.statusCode).toBe(200);
      expect(res.json().data, url).toEqual([]);
    }
    expect((await t.app.inject({ url: `/v1/ad_groups?campaign_id=${ids['campaign']}`, headers: bearer(b.key) })).json().data).toEqual([]);
    expect((await t.app.inject({ url: `/v1/ads?ad_group_id=${ids['ad_group']}`, headers: bearer(b.key) })).json().data).toEqual([]);
  });

  it('are unchanged for their owner afterwards', async () => {
    const get = async (url: string) => (await t.app.inject({ url, headers: bearer(a.key) })).json();
    expect(await get(`/v1/campaigns/${ids['campaign']}`)).toMatchObject({ name: 'Private', status: 'active' });
    expect(await get(`/v1/ad_groups/${ids['ad_group']}`)).toMatchObject({ name: 'Private', status: 'active' });
    expect(await get(`/v1/ads/${ids['ad']}`)).toMatchObject({ name: 'Private', status: 'active' });
    expect(await get(`/v1/conversions/event_settings/${ids['event_setting']}`)).toMatchObject({ archived: false });
    expect(await get(`/v1/custom_audiences/${ids['custom_audience']}`)).toMatchObject({ status: 'ready' });
    expect(await get(`/v1/product_feeds/${ids['product_feed']}`)).toMatchObject({ item_count: 0 });
  });
});
