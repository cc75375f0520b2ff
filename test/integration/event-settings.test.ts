import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bearer, makeAccount } from '../support/context.js';
import { startTestApp, type TestApp } from '../support/app.js';

const Setting = z
  .object({
    id: z.string().regex(/^evset_/),
    object: z.literal('conversion_event_setting'),
    ad_account_id: z.string(),
    name: z.string(),
    event_type: z.string(),
    custom_event_name: z.string().nullable(),
    attribution_window_days: z.union([z.literal(7), z.literal(14), z.literal(30)]),
    archived: z.boolean(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .strict();
const List = z.object({ object: z.literal('list'), data: z.array(Setting), first_id: z.string().nullable(), last_id: z.string().nullable(), has_more: z.boolean() }).strict();

let t: TestApp;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };
beforeAll(async () => {
  t = await startTestApp();
  a = await makeAccount(t);
  b = await makeAccount(t);
});
afterAll(() => t.close());

const create = (key: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/conversions/event_settings', headers: { ...bearer(key), ...headers }, payload });

describe('conversion event settings', () => {
  it('creates standard and custom settings with the documented record', async () => {
    const std = await create(a.key, { name: 'Purchases', event_type: 'order_created', attribution_window_days: 7 });
    expect(std.statusCode).toBe(200);
    expect(Setting.parse(std.json())).toMatchObject({
      ad_account_id: a.accountId,
      name: 'Purchases',
      event_type: 'order_created',
      custom_event_name: null,
      attribution_window_days: 7,
      archived: false,
      created_at: Math.floor(t.clock.nowMs() / 1000),
    });
    const custom = await create(a.key, { name: 'Quiz done', event_type: 'custom', custom_event_name: 'quiz_completed' });
    expect(Setting.parse(custom.json())).toMatchObject({ event_type: 'custom', custom_event_name: 'quiz_completed', attribution_window_days: 30 });
  });

  it.each([
    [{ event_type: 'order_created' }, 'missing_required_parameter', 'name'],
    [{ name: 'x', event_type: 'order_shipped' }, 'invalid_value', 'event_type'],
    [{ name: 'x', event_type: 'custom' }, 'missing_required_parameter', 'custom_event_name'],
    [{ name: 'x', event_type: 'order_created', custom_event_name: 'y' }, 'invalid_value', 'custom_event_name'],
    [{ name: 'x', event_type: 'custom', custom_event_name: 'order_created' }, 'invalid_value', 'custom_event_name'],
    [{ name: 'x', event_type: 'custom', custom_event_name: '   ' }, 'invalid_value', 'custom_event_name'],
    [{ name: 'x', event_type: 'lead_created', attribution_window_days: 10 }, 'invalid_value', 'attribution_window_days'],
    [{ name: 'x', event_type: 'lead_created', attribution_window_days: '7' }, 'invalid_value', 'attribution_window_days'],
    [{ name: 'x', event_type: 'lead_created', archived: true }, 'unknown_parameter', 'archived'],
  ])('%j -> 400 %s', async (payload, code, param) => {
    const res = await create(a.key, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it('retrieves, archives (idempotently) and filters by archived', async () => {
    const made = Setting.parse((await create(a.key, { name: 'Leads', event_type: 'lead_created' })).json());
    expect((await t.app.inject({ url: `/v1/conversions/event_settings/${made.id}`, headers: bearer(a.key) })).json()).toEqual(made);
    t.clock.advance(5000);
    const archived = await t.app.inject({ method: 'POST', url: `/v1/conversions/event_settings/${made.id}/archive`, headers: bearer(a.key) });
    expect(Setting.parse(archived.json())).toMatchObject({ id: made.id, archived: true, updated_at: made.updated_at + 5 });
    t.clock.advance(5000);
    const again = await t.app.inject({ method: 'POST', url: `/v1/conversions/event_settings/${made.id}/archive`, headers: bearer(a.key) });
    expect(again.json()).toEqual(archived.json());
    const onlyArchived = List.parse((await t.app.inject({ url: '/v1/conversions/event_settings?archived=true&limit=100', headers: bearer(a.key) })).json());
    expect(onlyArchived.data.map((s) => s.id)).toContain(made.id);
    expect(onlyArchived.data.every((s) => s.archived)).toBe(true);
    const active = List.parse((await t.app.inject({ url: '/v1/conversions/event_settings?archived=false&limit=100', headers: bearer(a.key) })).json());
    expect(active.data.map((s) => s.id)).not.toContain(made.id);
  });

  it("never shows another account's settings", async () => {
    const mine = Setting.parse((await create(a.key, { name: 'Mine', event_type: 'page_viewed' })).json());
    for (const res of [
      await t.app.inject({ url: `/v1/conversions/event_settings/${mine.id}`, headers: bearer(b.key) }),
      await t.app.inject({ method: 'POST', url: `/v1/conversions/event_settings/${mine.id}/archive`, headers: bearer(b.key) }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({ code: 'resource_missing' });
    }
    const listB = List.parse((await t.app.inject({ url: '/v1/conversions/event_settings?limit=500', headers: bearer(b.key) })).json());
    expect(listB.data.map((s) => s.id)).not.toContain(mine.id);
    const cursorFromA = await t.app.inject({ url: `/v1/conversions/event_settings?after=${mine.id}`, headers: bearer(b.key) });
    expect(cursorFromA.statusCode).toBe(400);
    expect(cursorFromA.json().error).toMatchObject({ code: 'invalid_value', param: 'after' });
    // Still unarchived for its owner.
    expect((await t.app.inject({ url: `/v1/conversions/event_settings/${mine.id}`, headers: bearer(a.key) })).json().archived).toBe(false);
  });
});

describe('Idempotency-Key on creates', () => {
  it('replays the original object for the same key and body, and refuses another body', async () => {
    const body = { name: 'Idem', event_type: 'trial_started' };
    const first = await create(a.key, body, { 'idempotency-key': 'k-1' });
    const second = await create(a.key, { event_type: 'trial_started', name: 'Idem' }, { 'idempotency-key': 'k-1' });
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(second.headers['idempotent-replayed']).toBe('true');
    const other = await create(a.key, { ...body, name: 'Other' }, { 'idempotency-key': 'k-1' });
    expect(other.statusCode).toBe(422);
    expect(other.json().error).toMatchObject({ type: 'invalid_request_error', code: 'idempotency_key_reused' });
    // Keys are per account: another account may use the same key.
    const otherAccount = await create(b.key, body, { 'idempotency-key': 'k-1' });
    expect(otherAccount.statusCode).toBe(200);
    expect(otherAccount.json().id).not.toBe(first.json().id);
  });

  it('creates once when the same key arrives concurrently', async () => {
    const body = { name: 'Race', event_type: 'app_opened' };
    const results = await Promise.all(Array.from({ length: 8 }, () => create(a.key, body, { 'idempotency-key': 'race-1' })));
    expect(new Set(results.map((r) => r.json().id)).size).toBe(1);
    const all = List.parse((await t.app.inject({ url: '/v1/conversions/event_settings?limit=500', headers: bearer(a.key) })).json());
    expect(all.data.filter((s) => s.name === 'Race')).toHaveLength(1);
  });

  it('does not remember failures, so a corrected request can reuse its key', async () => {
    const bad = await create(a.key, { name: 'Fixed', event_type: 'nope' }, { 'idempotency-key': 'fix-1' });
    expect(bad.statusCode).toBe(400);
    const good = await create(a.key, { name: 'Fixed', event_type: 'lead_created' }, { 'idempotency-key': 'fix-1' });
    expect(good.statusCode).toBe(200);
  });

  it('refuses keys longer than 255 characters', async () => {
    const res = await create(a.key, { name: 'x', event_type: 'lead_created' }, { 'idempotency-key': 'k'.repeat(256) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'string_above_max_length', param: 'Idempotency-Key' });
  });
});
