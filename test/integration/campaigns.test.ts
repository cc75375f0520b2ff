import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { processAudience } from '../../src/domain/audiences/audiences.js';
import { bearer, makeAccount } from '../support/context.js';
import { emails, insertCustomerList } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

const MIN = 5;
const NOW = Math.floor(Date.UTC(2026, 10, 22, 12) / 1000);

const Campaign = z
  .object({
    id: z.string().regex(/^cmpn_/),
    object: z.literal('campaign'),
    created_at: z.number().int(),
    updated_at: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    status: z.enum(['active', 'paused', 'archived']),
    start_time: z.number().int().nullable(),
    end_time: z.number().int().nullable(),
    budget: z.object({ lifetime_spend_limit_micros: z.number().int() }).strict(),
    bidding_type: z.enum(['impressions', 'clicks', 'conversions']),
    conversion_event_setting_ids: z.array(z.string()),
    mode: z.literal('product_feed').nullable(),
    product_feed_id: z.string().nullable(),
    targeting: z
      .object({
        locations: z
          .object({
            include: z.array(z.object({ id: z.string(), type: z.string(), country_code: z.string(), name: z.string(), region_code: z.string().nullable() }).strict()),
          })
          .optional(),
        platforms: z.object({ included: z.array(z.string()) }).optional(),
        custom_audiences: z.object({ ids: z.array(z.string()) }).optional(),
        excluded_custom_audiences: z.object({ ids: z.array(z.string()) }).optional(),
      })
      .strict(),
  })
  .strict();
type Campaign = z.infer<typeof Campaign>;

let t: TestApp;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };
let noConv: { accountId: string; key: string };
beforeAll(async () => {
  t = await startTestApp({ env: { ADSVC_AUDIENCE_MIN_SIZE: String(MIN) } });
  a = await makeAccount(t);
  b = await makeAccount(t);
  noConv = await makeAccount(t, { enable: ['brand'] });
});
afterAll(() => t.close());

const base = { name: 'Spring sale', status: 'active', budget: { lifetime_spend_limit_micros: 5_000_000 } };
const post = (key: string, url: string, payload?: unknown) =>
  t.app.inject({ method: 'POST', url, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });
async function create(payload: object, key = a.key): Promise<Campaign> {
  const res = await post(key, '/v1/campaigns', payload);
  expect(res.statusCode, res.body).toBe(200);
  return Campaign.parse(res.json());
}
async function expectError(res: { statusCode: number; json(): { error: unknown } }, status: number, type: string, code: string, param: string | null) {
  expect(res.statusCode).toBe(status);
  expect(res.json().error).toMatchObject({ type, code, param });
}
async function setting(event_type: string, custom_event_name?: string): Promise<string> {
  const res = await post(a.key, '/v1/conversions/event_settings', { name: 'goal', event_type, ...(custom_event_name ? { custom_event_name } : {}) });
  return res.json().id as string;
}
async function audience(n: number, prefix: string): Promise<string> {
  const { body } = await insertCustomerList(t.store, t.dataDir, a.accountId, emails(prefix, n));
  const id = (await post(a.key, '/v1/custom_audiences', { name: 'aud', ...body })).json().id as string;
  await processAudience({ store: t.store, clock: t.clock, dataDir: t.dataDir, minSize: MIN }, id);
  return id;
}

describe('create', () => {
  it('applies defaults and returns the documented shape', async () => {
    const c = await create(base);
    expect(c).toEqual({
      id: c.id,
      object: 'campaign',
      created_at: NOW,
      updated_at: NOW,
      name: 'Spring sale',
      description: null,
      status: 'active',
      start_time: null,
      end_time: null,
      budget: { lifetime_spend_limit_micros: 5_000_000 },
      bidding_type: 'impressions',
      conversion_event_setting_ids: [],
      mode: null,
      product_feed_id: null,
      targeting: {},
    });
    expect((await t.app.inject({ url: `/v1/campaigns/${c.id}`, headers: bearer(a.key) })).json()).toEqual(c);
  });

  it('expands locations and keeps platforms', async () => {
    const c = await create({ ...base, targeting: { locations: { include: [{ id: '840006' }, { id: '840501' }] }, platforms: { included: ['ios_app', 'android_web'] } } });
    expect(c.targeting.locations?.include).toEqual([
      { id: '840006', type: 'region', country_code: 'US', name: 'California', region_code: 'CA' },
      { id: '840501', type: 'market', country_code: 'US', name: expect.stringContaining('New York'), region_code: null },
    ]);
    expect(c.targeting.platforms).toEqual({ included: ['ios_app', 'android_web'] });
  });

  it.each([
    [{ ...base, name: 'ab' }, 'string_below_min_length', 'name'],
    [{ ...base, name: '     ' }, 'invalid_value', 'name'],
    [{ ...base, name: 'x'.repeat(1001) }, 'string_above_max_length', 'name'],
    [{ name: 'Valid', budget: base.budget }, 'missing_required_parameter', 'status'],
    [{ ...base, status: 'archived' }, 'invalid_value', 'status'],
    [{ name: 'Valid', status: 'active' }, 'missing_required_parameter', 'budget'],
    [{ ...base, budget: { lifetime_spend_limit_micros: 999_999 } }, 'integer_below_min_value', 'budget.lifetime_spend_limit_micros'],
    [{ ...base, budget: { lifetime_spend_limit_micros: '5000000' } }, 'invalid_type', 'budget.lifetime_spend_limit_micros'],
    [{ ...base, start_time: 946_684_799 }, 'integer_below_min_value', 'start_time'],
    [{ ...base, end_time: 4_102_444_801 }, 'integer_above_max_value', 'end_time'],
    [{ ...base, start_time: NOW + 100, end_time: NOW + 100 }, 'invalid_value', 'end_time'],
    [{ ...base, end_time: NOW - 10 }, 'invalid_value', 'end_time'],
    [{ ...base, bidding_type: 'views' }, 'invalid_value', 'bidding_type'],
    [{ ...base, conversion_event_setting_ids: ['evset_x'] }, 'invalid_value', 'conversion_event_setting_ids'],
    [{ ...base, mode: 'product_feed' }, 'missing_required_parameter', 'product_feed_id'],
    [{ ...base, product_feed_id: 'pfeed_x' }, 'invalid_value', 'product_feed_id'],
    [{ ...base, targeting: { platforms: {} } }, 'missing_required_parameter', 'targeting.platforms.included'],
    [{ ...base, targeting: { platforms: { included: [] } } }, 'array_below_min_length', 'targeting.platforms.included'],
    [{ ...base, targeting: { platforms: { included: ['web'] } } }, 'invalid_value', 'targeting.platforms.included[0]'],
    [{ ...base, targeting: { platforms: { included: ['ios_app', 'ios_app'] } } }, 'invalid_value', 'targeting.platforms.included'],
    [{ ...base, targeting: { locations: { include: [{ id: '999999999' }] } } }, 'invalid_value', 'targeting.locations.include[0].id'],
    [{ ...base, targeting: { locations: { include: [] } } }, 'array_below_min_length', 'targeting.locations.include'],
    [{ ...base, targeting: { colour: 'red' } }, 'unknown_parameter', 'targeting.colour'],
    [{ ...base, colour: 'red' }, 'unknown_parameter', 'colour'],
  ])('400 for %j', async (payload, code, param) => {
    await expectError(await post(a.key, '/v1/campaigns', payload), 400, 'invalid_request_error', code, param);
  });

  it('product-feed campaigns need an existing feed of the account', async () => {
    const feed = (await post(a.key, '/v1/product_feeds', { name: 'Feed' })).json().id as string;
    const c = await create({ ...base, mode: 'product_feed', product_feed_id: feed });
    expect(c).toMatchObject({ mode: 'product_feed', product_feed_id: feed });
    await expectError(await post(a.key, '/v1/campaigns', { ...base, mode: 'product_feed', product_feed_id: 'pfeed_nope' }), 404, 'invalid_request_error', 'resource_missing', 'product_feed_id');
    const theirs = (await post(b.key, '/v1/product_feeds', { name: 'Theirs' })).json().id as string;
    await expectError(await post(a.key, '/v1/campaigns', { ...base, mode: 'product_feed', product_feed_id: theirs }), 404, 'invalid_request_error', 'resource_missing', 'product_feed_id');
  });
});

describe('conversion bidding', () => {
  it('takes exactly one active standard event setting', async () => {
    const goal = await setting('order_created');
    const c = await create({ ...base, bidding_type: 'conversions', conversion_event_setting_ids: [goal] });
    expect(c).toMatchObject({ bidding_type: 'conversions', conversion_event_setting_ids: [goal] });
    const custom = await setting('custom', 'quiz_done');
    await expectError(await post(a.key, '/v1/campaigns', { ...base, bidding_type: 'conversions', conversion_event_setting_ids: [custom] }), 400, 'invalid_request_error', 'invalid_value', 'conversion_event_setting_ids[0]');
    await expectError(await post(a.key, '/v1/campaigns', { ...base, bidding_type: 'conversions' }), 400, 'invalid_request_error', 'missing_required_parameter', 'conversion_event_setting_ids');
    const second = await setting('lead_created');
    await expectError(await post(a.key, '/v1/campaigns', { ...base, bidding_type: 'conversions', conversion_event_setting_ids: [goal, second] }), 400, 'invalid_request_error', 'invalid_value', 'conversion_event_setting_ids');
    await post(a.key, `/v1/conversions/event_settings/${second}/archive`);
    await expectError(await post(a.key, '/v1/campaigns', { ...base, bidding_type: 'conversions', conversion_event_setting_ids: [second] }), 400, 'invalid_request_error', 'invalid_value', 'conversion_event_setting_ids[0]');
    await expectError(await post(a.key, '/v1/campaigns', { ...base, bidding_type: 'conversions', conversion_event_setting_ids: ['evset_nope'] }), 404, 'invalid_request_error', 'resource_missing', 'conversion_event_setting_ids[0]');
  });

  it('is 403 when the account does not have it', async () => {
    await expectError(await post(noConv.key, '/v1/campaigns', { ...base, bidding_type: 'conversions', conversion_event_setting_ids: ['evset_x'] }), 403, 'permission_error', 'conversion_bidding_not_enabled', 'bidding_type');
  });
});

describe('update', () => {
  it('changes only what is sent; null clears description, times and targeting', async () => {
    const c = await create({ ...base, description: 'd', start_time: NOW + 3600, end_time: NOW + 7200, targeting: { platforms: { included: ['ios_app'] } } });
    t.clock.advance(60_000);
    const res = await post(a.key, `/v1/campaigns/${c.id}`, { name: 'Renamed' });
    const u = Campaign.parse(res.json());
    expect(u).toEqual({ ...c, name: 'Renamed', updated_at: c.updated_at + 60 });
    const cleared = Campaign.parse((await post(a.key, `/v1/campaigns/${c.id}`, { description: null, start_time: null, end_time: null, targeting: null })).json());
    expect(cleared).toMatchObject({ description: null, start_time: null, end_time: null, targeting: {} });
  });

  it('merges targeting parts: omitted keeps, a value replaces, null clears that part only', async () => {
    const c = await create({ ...base, targeting: { locations: { include: [{ id: '840' }] }, platforms: { included: ['ios_app'] } } });
    const keep = Campaign.parse((await post(a.key, `/v1/campaigns/${c.id}`, { targeting: { locations: { include: [{ id: '124' }] } } })).json());
    expect(keep.targeting.platforms).toEqual({ included: ['ios_app'] });
    expect(keep.targeting.locations?.include.map((l) => l.id)).toEqual(['124']);
    const replaced = Campaign.parse((await post(a.key, `/v1/campaigns/${c.id}`, { targeting: { platforms: { included: ['desktop_web'] } } })).json());
    expect(replaced.targeting).toMatchObject({ platforms: { included: ['desktop_web'] }, locations: { include: [{ id: '124' }] } });
    const noPlatforms = Campaign.parse((await post(a.key, `/v1/campaigns/${c.id}`, { targeting: { platforms: null } })).json());
    expect(noPlatforms.targeting.platforms).toBeUndefined();
    expect(noPlatforms.targeting.locations?.include.map((l) => l.id)).toEqual(['124']);
    await expectError(await post(a.key, `/v1/campaigns/${c.id}`, { targeting: { platforms: {} } }), 400, 'invalid_request_error', 'missing_required_parameter', 'targeting.platforms.included');
    await expectError(await post(a.key, `/v1/campaigns/${c.id}`, { targeting: { platforms: { included: [] } } }), 400, 'invalid_request_error', 'array_below_min_length', 'targeting.platforms.included');
  });

  it('needs the full budget object and checks times against what is stored', async () => {
    const c = await create({ ...base, start_time: NOW + 3600 });
    await expectError(await post(a.key, `/v1/campaigns/${c.id}`, { budget: {} }), 400, 'invalid_request_error', 'missing_required_parameter', 'budget.lifetime_spend_limit_micros');
    expect((await post(a.key, `/v1/campaigns/${c.id}`, { budget: { lifetime_spend_limit_micros: 9_000_000 } })).json().budget).toEqual({ lifetime_spend_limit_micros: 9_000_000 });
    await expectError(await post(a.key, `/v1/campaigns/${c.id}`, { end_time: NOW + 10 }), 400, 'invalid_request_error', 'invalid_value', 'end_time');
  });

  it('keeps the objective and the conversion event', async () => {
    const goal = await setting('order_created');
    const conv = await create({ ...base, bidding_type: 'conversions', conversion_event_setting_ids: [goal] });
    await expectError(await post(a.key, `/v1/campaigns/${conv.id}`, { bidding_type: 'clicks' }), 400, 'invalid_request_error', 'immutable_parameter', 'bidding_type');
    const other = await setting('lead_created');
    await expectError(await post(a.key, `/v1/campaigns/${conv.id}`, { conversion_event_setting_ids: [other] }), 400, 'invalid_request_error', 'immutable_parameter', 'conversion_event_setting_ids');
    expect((await post(a.key, `/v1/campaigns/${conv.id}`, { bidding_type: 'conversions', conversion_event_setting_ids: [goal] })).statusCode).toBe(200);
  });
});

describe('status', () => {
  it('moves between active and paused; archived is final', async () => {
    const c = await create({ ...base, status: 'paused' });
    expect((await post(a.key, `/v1/campaigns/${c.id}/activate`)).json().status).toBe('active');
    expect((await post(a.key, `/v1/campaigns/${c.id}/pause`)).json().status).toBe('paused');
    expect((await post(a.key, `/v1/campaigns/${c.id}`, { status: 'active' })).json().status).toBe('active');
    expect((await post(a.key, `/v1/campaigns/${c.id}/archive`)).json().status).toBe('archived');
    expect((await post(a.key, `/v1/campaigns/${c.id}/archive`)).json().status).toBe('archived');
    for (const attempt of [
      await post(a.key, `/v1/campaigns/${c.id}/activate`),
      await post(a.key, `/v1/campaigns/${c.id}/pause`),
      await post(a.key, `/v1/campaigns/${c.id}`, { status: 'active' }),
      await post(a.key, `/v1/campaigns/${c.id}`, { name: 'Revived' }),
    ]) {
      await expectError(attempt, 400, 'invalid_request_error', 'resource_archived', null);
    }
    expect((await t.app.inject({ url: `/v1/campaigns/${c.id}`, headers: bearer(a.key) })).json().status).toBe('archived');
  });

  it('transition routes take no body fields', async () => {
    const c = await create(base);
    await expectError(await post(a.key, `/v1/campaigns/${c.id}/pause`, { status: 'active' }), 400, 'invalid_request_error', 'unknown_parameter', 'status');
  });
});

describe('audience targeting', () => {
  it('includes ready audiences, excludes ready or small ones, and checks what remains', async () => {
    const big = await audience(8, 'big');
    const small = await audience(2, 'small');
    const c = await create({ ...base, targeting: { custom_audiences: { ids: [big] }, excluded_custom_audiences: { ids: [small] } } });
    expect(c.targeting).toMatchObject({ custom_audiences: { ids: [big] }, excluded_custom_audiences: { ids: [small] } });
    const exclusionOnly = await create({ ...base, targeting: { excluded_custom_audiences: { ids: [small] } } });
    expect(exclusionOnly.targeting.custom_audiences).toBeUndefined();
    await expectError(await post(a.key, '/v1/campaigns', { ...base, targeting: { custom_audiences: { ids: [small] } } }), 400, 'invalid_request_error', 'audience_not_eligible', 'targeting.custom_audiences.ids[0]');
    // Excluding 4 of big's 8 members leaves 4 < 5.
    const overlap = await audience(4, 'big');
    await expectError(
      await post(a.key, '/v1/campaigns', { ...base, targeting: { custom_audiences: { ids: [big] }, excluded_custom_audiences: { ids: [overlap] } } }),
      400,
      'invalid_request_error',
      'audience_not_eligible',
      'targeting.excluded_custom_audiences.ids',
    );
    await expectError(await post(a.key, '/v1/campaigns', { ...base, targeting: { custom_audiences: { ids: ['caud_nope'] } } }), 404, 'invalid_request_error', 'resource_missing', 'targeting.custom_audiences.ids[0]');
  });

  it('checks eligibility again on every save', async () => {
    const aud = await audience(6, 'recheck');
    const c = await create({ ...base, targeting: { custom_audiences: { ids: [aud] } } });
    await post(a.key, `/v1/custom_audiences/${aud}/archive`);
    await expectError(await post(a.key, `/v1/campaigns/${c.id}`, { name: 'Any edit' }), 400, 'invalid_request_error', 'audience_not_eligible', 'targeting.custom_audiences.ids[0]');
    expect((await t.app.inject({ url: `/v1/campaigns/${c.id}`, headers: bearer(a.key) })).json().name).toBe('Spring sale');
  });
});

describe('lists and isolation', () => {
  it("lists only the account's campaigns and never shows another's", async () => {
    const mine = await create(base);
    const theirs = await create(base, b.key);
    const list = (await t.app.inject({ url: '/v1/campaigns?limit=500', headers: bearer(a.key) })).json();
    expect(list).toMatchObject({ object: 'list', has_more: false });
    const ids = (list.data as Campaign[]).map((c) => c.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    for (const res of [
      await t.app.inject({ url: `/v1/campaigns/${theirs.id}`, headers: bearer(a.key) }),
      await post(a.key, `/v1/campaigns/${theirs.id}`, { name: 'Stolen' }),
      await post(a.key, `/v1/campaigns/${theirs.id}/archive`),
    ]) {
      await expectError(res, 404, 'invalid_request_error', 'resource_missing', null);
    }
    expect((await t.app.inject({ url: `/v1/campaigns/${theirs.id}`, headers: bearer(b.key) })).json()).toMatchObject({ name: 'Spring sale', status: 'active' });
  });

  it('honours Idempotency-Key', async () => {
    const headers = { ...bearer(a.key), 'idempotency-key': 'cmpn-create-1' };
    const one = await t.app.inject({ method: 'POST', url: '/v1/campaigns', headers, payload: base });
    const two = await t.app.inject({ method: 'POST', url: '/v1/campaigns', headers, payload: base });
    expect(two.json()).toEqual(one.json());
    const changed = await t.app.inject({ method: 'POST', url: '/v1/campaigns', headers, payload: { ...base, name: 'Other' } });
    await expectError(changed, 422, 'invalid_request_error', 'idempotency_key_reused', 'Idempotency-Key');
  });
});

describe('audience membership races', () => {
  it('a save that races a membership change is 409 custom_audience_mutation_conflict and applies nothing', async () => {
    const { updateCampaign } = await import('../../src/domain/campaigns/campaigns.js');
    const { ApiError } = await import('../../src/errors/api-error.js');
    const aud = await audience(6, 'race');
    const c = await create({ ...base, targeting: { custom_audiences: { ids: [aud] } } });
    // The membership job commits between the eligibility check and the save's transaction.
    const racing = Object.create(t.store, {
      transaction: {
        value: async (fn: Parameters<typeof t.store.transaction>[0]) => {
          await t.store.run('UPDATE custom_audiences SET membership_version = membership_version + 1 WHERE id = $id', { id: aud });
          return t.store.transaction(fn);
        },
      },
    }) as typeof t.store;
    const err = await updateCampaign({ store: racing, clock: t.clock, audienceMinSize: MIN }, a.accountId, c.id, { name: 'Raced' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, type: 'conflict_error', code: 'custom_audience_mutation_conflict' });
    expect((await t.app.inject({ url: `/v1/campaigns/${c.id}`, headers: bearer(a.key) })).json().name).toBe('Spring sale');
  });
});
