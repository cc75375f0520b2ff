import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { bearer, makeAccount, testConfig } from '../support/context.js';
import { startTestApp, type TestApp } from '../support/app.js';

/** Account spending limits through HTTP, with the clock moved instead of waited for. */
const NOON_UTC = Date.UTC(2026, 10, 22, 12); // 07:00 in New York, 2026-11-22
let t: TestApp;
let failNext = false;

beforeAll(async () => {
  t = await startTestApp({
    clock: new ManualClock(NOON_UTC),
    spendLimitFaults: {
      afterDailyCommit: () => {
        if (failNext) {
          failNext = false;
          throw new Error('injected: response could not be built');
        }
      },
    },
  });
});
afterAll(() => t.close());

async function account(timezone = 'America/New_York', currency = 'USD') {
  const acct = await makeAccount(t, { timezone });
  if (currency !== 'USD') await t.store.run('UPDATE ad_accounts SET currency_code = $c WHERE id = $id', { c: currency, id: acct.accountId });
  return acct;
}
const call = (key: string, method: 'GET' | 'POST', url: string, payload?: unknown) =>
  t.app.inject({ method, url: `/v1${url}`, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });
const config = async (key: string) => {
  const res = await call(key, 'GET', '/ad_account/spend_limit_windows');
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
const createWindow = (key: string, body: object) => call(key, 'POST', '/ad_account/spend_limit_windows', body);
const expectError = (res: { statusCode: number; json(): { error: unknown } }, status: number, code: string, param?: string | null) => {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
  expect(res.json().error).toMatchObject({ code, ...(param === undefined ? {} : { param }) });
};
const spend = (accountId: string, day: string, micros: number, at = NOON_UTC) =>
  t.store.run('INSERT OR REPLACE INTO account_daily_spend VALUES ($a, $d, $m, $at)', { a: accountId, d: day, m: micros, at });
const at = (iso: string) => t.clock.set(Date.parse(iso));

describe('access', () => {
  it('needs the billing permission, for reads too', async () => {
    t.clock.set(NOON_UTC);
    const acct = await account();
    const plain = await createApiKey(t, { account: acct.accountId, billing: false });
    for (const [method, url] of [
      ['GET', '/ad_account/spend_limit_windows'],
      ['POST', '/ad_account/spend_limit_windows'],
      ['POST', '/ad_account/daily_spend_limit'],
    ] as const) {
      const res = await call(plain.key, method, url, method === 'POST' ? {} : undefined);
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toMatchObject({ type: 'permission_error', code: 'billing_permission_required' });
    }
  });

  it('needs postpaid invoice billing (403 postpaid_invoice_required)', async () => {
    const acct = await makeAccount(t, { enable: ['brand'] });
    expectError(await call(acct.key, 'GET', '/ad_account/spend_limit_windows'), 403, 'postpaid_invoice_required');
  });
});

describe('configuration', () => {
  it('starts empty at revision 0', async () => {
    t.clock.set(NOON_UTC);
    const { key } = await account();
    expect(await config(key)).toEqual({
      object: 'list',
      data: [],
      daily_limit: null,
      revision: 0,
      earliest_daily_start_date: '2026-11-23',
      earliest_dated_start_date: null,
      can_create_daily_limit: true,
      evaluated_at: new Date(NOON_UTC).toISOString(),
    });
  });
});

describe('date range windows', () => {
  it('moves upcoming -> active -> completed at local midnights, with its flags', async () => {
    t.clock.set(NOON_UTC);
    const { key } = await account();
    const res = await createWindow(key, { start_date: '2026-11-23', end_date: '2026-11-25', amount_micros: 5_000_000, name: 'Q4', io_id: 'IO-7' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      window_id: expect.stringMatching(/^slw_/),
      object: 'ad_account_spend_limit_window',
      start_date: '2026-11-23',
      end_date: '2026-11-25',
      amount_micros: 5_000_000,
      name: 'Q4',
      io_id: 'IO-7',
      status: 'upcoming',
      can_edit: true,
      can_edit_start_date: true,
      can_delete: true,
    });
    expect((await config(key)).revision).toBe(1);
    at('2026-11-23T04:59:59Z'); // 23:59:59 on the 22nd in New York
    expect((await config(key)).data[0].status).toBe('upcoming');
    at('2026-11-23T05:00:00Z'); // midnight of the 23rd
    expect((await config(key)).data[0]).toMatchObject({ status: 'active', can_edit: true, can_edit_start_date: false, can_delete: true, spent_micros: 0 });
    at('2026-11-25T05:00:00Z');
    expect((await config(key)).data[0]).toMatchObject({ status: 'completed', can_edit: false, can_edit_start_date: false, can_delete: false });
    expect((await config(key)).data[0].spent_micros).toBeUndefined();
  });

  it('reports the spend of the active window from recorded daily spend', async () => {
    t.clock.set(NOON_UTC);
    const { key, accountId } = await account();
    await createWindow(key, { start_date: '2026-11-22', end_date: '2026-11-30', amount_micros: 9_000_000 });
    await spend(accountId, '2026-11-21', 111); // before the window
    await spend(accountId, '2026-11-22', 2_000_000);
    expect((await config(key)).data[0]).toMatchObject({ status: 'active', spent_micros: 2_000_000 });
    at('2026-11-23T15:00:00Z');
    await spend(accountId, '2026-11-23', 500_000);
    expect((await config(key)).data[0].spent_micros).toBe(2_500_000);
  });

  it.each([
    [{ start_date: '2026-02-30', end_date: '2026-12-01', amount_micros: 0 }, 400, 'invalid_value', 'start_date'],
    [{ start_date: '2026-11-22', end_date: '2100-01-02', amount_micros: 0 }, 400, 'invalid_value', 'end_date'],
    [{ start_date: '26-11-22', end_date: '2026-12-01', amount_micros: 0 }, 400, 'invalid_value', 'start_date'],
    [{ end_date: '2026-12-01', amount_micros: 0 }, 400, 'missing_required_parameter', 'start_date'],
    [{ start_date: '2026-11-22', end_date: '2026-12-01', amount_micros: '100' }, 400, 'invalid_type', 'amount_micros'],
    [{ start_date: '2026-11-22', end_date: '2026-12-01', amount_micros: 10.5 }, 400, 'invalid_type', 'amount_micros'],
    [{ start_date: '2026-11-22', end_date: '2026-12-01', amount_micros: 0, name: 'x'.repeat(257) }, 400, 'string_above_max_length', 'name'],
    [{ start_date: '2026-11-21', end_date: '2026-12-01', amount_micros: 0 }, 422, 'start_date_in_past', 'start_date'],
    [{ start_date: '2026-11-25', end_date: '2026-11-25', amount_micros: 0 }, 422, 'end_date_not_after_start_date', 'end_date'],
    [{ start_date: '2026-11-25', end_date: '2026-12-01', amount_micros: -10_000 }, 422, 'invalid_amount', 'amount_micros'],
    [{ start_date: '2026-11-25', end_date: '2026-12-01', amount_micros: 10_001 }, 422, 'invalid_amount', 'amount_micros'],
    [{ start_date: '2026-11-25', end_date: '2026-12-01', amount_micros: 1_000_000_000_010_000 }, 422, 'invalid_amount', 'amount_micros'],
  ])('refuses %j with %i %s', async (body, status, code, param) => {
    t.clock.set(NOON_UTC);
    const { key } = await account();
    expectError(await createWindow(key, body), status, code, param);
    expect((await config(key)).revision).toBe(0);
  });

  it('uses the currency unit: JPY amounts are whole yen (1000000 micros)', async () => {
    t.clock.set(NOON_UTC);
    const { key } = await account('Asia/Tokyo', 'JPY');
    expectError(await createWindow(key, { start_date: '2026-11-25', end_date: '2026-12-01', amount_micros: 10_000 }), 422, 'invalid_amount');
    expect((await createWindow(key, { start_date: '2026-11-25', end_date: '2026-12-01', amount_micros: 3_000_000 })).statusCode).toBe(200);
  });

  it('refuses overlaps but allows back-to-back windows', async () => {
    t.clock.set(NOON_UTC);
    const { key } = await account();
    expect((await createWindow(key, { start_date: '2026-12-01', end_date: '2026-12-10', amount_micros: 0 })).statusCode).toBe(200);
    expect((await createWindow(key, { start_date: '2026-12-10', end_date: '2026-12-20', amount_micros: 0 })).statusCode).toBe(200);
    expect((await createWindow(key, { start_date: '2026-11-25', end_date: '2026-12-01', amount_micros: 0 })).statusCode).toBe(200);
    expectError(await createWindow(key, { start_date: '2026-12-09', end_date: '2026-12-11', amount_micros: 0 }), 422, 'spend_limit_overlap');
    expectError(await createWindow(key, { start_date: '2026-11-20', end_date: '2027-01-01', amount_micros: 0 }), 422, 'start_date_in_past');
    expectError(await createWindow(key, { start_date: '2026-11-22', end_date: '2027-01-01', amount_micros: 0 }), 422, 'spend_limit_overlap');
    expect((await config(key)).data.map((w: { start_date: string }) => w.start_date)).toEqual(['2026-11-25', '2026-12-01', '2026-12-10']);
  });

  it('schedules at most 60 future windows', async () => {
    t.clock.set(NOON_UTC);
    const { key } = await account();
    for (let i = 0; i < 60; i++) {
      const start = new Date(Date.UTC(2027, 0, 1 + i)).toISOString().slice(0, 10);
      const end = new Date(Date.UTC(2027, 0, 2 + i)).toISOString().slice(0, 10);
      expect((await createWindow(key, { start_date: start, end_date: end, amount_micros: 0 })).statusCode).toBe(200);
    }
    expectError(await createWindow(key, { start_date: '2028-01-01', end_date: '2028-01-02', amount_micros: 0 }), 422, 'too_many_windows');
    // One starting today is active, not future: still allowed.
    expect((await createWindow(key, { start_date: '2026-11-22', end_date: '2026-11-23', amount_micros: 0 })).statusCode).toBe(200);
  });

  it('updates: omitted keeps, null clears labels, start dates only while upcoming', async () => {
    t.clock.set(NOON_UTC);
    const { key, accountId } = await account();
    const w = (await createWindow(key, { start_date: '2026-11-23', end_date: '2026-11-30', amount_micros: 5_000_000, name: 'N', io_id: 'IO' })).json();
    const url = `/ad_account/spend_limit_windows/${w.window_id}`;
    expect((await call(key, 'POST', url, { name: null, start_date: '2026-11-24' })).json()).toMatchObject({ name: null, io_id: 'IO', start_date: '2026-11-24', amount_micros: 5_000_000 });
    expectError(await call(key, 'POST', url, {}), 400, 'missing_required_parameter');
    expectError(await call(key, 'POST', url, { start_date: null }), 400, 'invalid_type', 'start_date');
    expectError(await call(key, 'POST', url, { amount_micros: null }), 400, 'invalid_type', 'amount_micros');
    expectError(await call(key, 'POST', url, { end_date: '2026-11-24' }), 422, 'end_date_not_after_start_date');
    at('2026-11-25T15:00:00Z'); // active now
    expectError(await call(key, 'POST', url, { start_date: '2026-11-26' }), 422, 'start_date_not_editable', 'start_date');
    expectError(await call(key, 'POST', url, { end_date: '2026-11-25' }), 422, 'end_date_not_in_future', 'end_date');
    expect((await call(key, 'POST', url, { end_date: '2026-11-26' })).json()).toMatchObject({ end_date: '2026-11-26', status: 'active' });
    await spend(accountId, '2026-11-24', 3_000_000);
    await spend(accountId, '2026-11-25', 1_000_000);
    expectError(await call(key, 'POST', url, { amount_micros: 3_990_000 }), 422, 'budget_window_amount_below_spend', 'amount_micros');
    expect((await call(key, 'POST', url, { amount_micros: 4_000_000 })).json()).toMatchObject({ amount_micros: 4_000_000, spent_micros: 4_000_000 });
    at('2026-11-26T15:00:00Z'); // completed
    expectError(await call(key, 'POST', url, { name: 'late' }), 422, 'window_completed');
    expectError(await call(key, 'POST', `${url}/delete`), 422, 'window_completed');
  });

  it('deletes upcoming and active windows; the deleted record answers', async () => {
    t.clock.set(NOON_UTC);
    const { key } = await account();
    const w = (await createWindow(key, { start_date: '2026-11-22', end_date: '2026-11-30', amount_micros: 0 })).json();
    const res = await call(key, 'POST', `/ad_account/spend_limit_windows/${w.window_id}/delete`);
    expect(res.json()).toEqual({ window_id: w.window_id, object: 'ad_account_spend_limit_window.deleted', deleted: true });
    const c = await config(key);
    expect(c.data).toEqual([]);
    expect(c.revision).toBe(2);
    expectError(await call(key, 'POST', `/ad_account/spend_limit_windows/${w.window_id}/delete`), 404, 'resource_missing');
  });
});

describe('the daily limit', () => {
  const daily = (key: string, body: object) => call(key, 'POST', '/ad_account/daily_spend_limit', body);

  it('is created from tomorrow by default, then edited with the revision', async () => {
    t.clock.set(NOON_UTC);
    const { key } = await account();
    const res = await daily(key, { amount_micros: 2_000_000, expected_revision: 0 });
    expect(res.statusCode, res.body).toBe(200);
    const c = res.json().spend_limits;
    expect(c.daily_limit).toEqual({
      amount_micros: 2_000_000,
      start_date: '2026-11-23',
      end_date: null,
      timezone: 'America/New_York',
      status: 'upcoming',
      spent_micros: null,
      remaining_micros: null,
      spend_as_of: null,
      next_reset: null,
    });
    expect(c).toMatchObject({ revision: 1, can_create_daily_limit: false });
    expectError(await daily(key, { amount_micros: 3_000_000, expected_revision: 0 }), 409, 'revision_mismatch', 'expected_revision');
    expectError(await daily(key, { amount_micros: 3_000_000, expected_revision: 1, start_date: '2026-11-24' }), 422, 'start_date_not_editable', 'start_date');
    const edited = (await daily(key, { amount_micros: 3_000_000, expected_revision: 1, end_date: '2026-12-01' })).json().spend_limits;
    expect(edited.daily_limit).toMatchObject({ amount_micros: 3_000_000, end_date: '2026-12-01' });
    expect(edited.earliest_dated_start_date).toBe('2026-12-01');
    const kept = (await daily(key, { amount_micros: 3_000_000, expected_revision: 2 })).json().spend_limits;
    expect(kept.daily_limit.end_date).toBe('2026-12-01');
    const open = (await daily(key, { amount_micros: 3_000_000, expected_revision: 3, end_date: null })).json().spend_limits;
    expect(open.daily_limit.end_date).toBeNull();
    expectError(await daily(key, { amount_micros: 3_000_000, expected_revision: 4, end_date: '2026-11-23' }), 422, 'end_date_not_after_start_date');
  });

  it('is required to name start_date after removal, and starts tomorrow or later', async () => {
    t.clock.set(NOON_UTC);
    const { key } = await account();
    await daily(key, { amount_micros: 2_000_000, expected_revision: 0 });
    expectError(await call(key, 'POST', '/ad_account/daily_spend_limit/delete', { expected_revision: 0 }), 409, 'revision_mismatch');
    const removed = (await call(key, 'POST', '/ad_account/daily_spend_limit/delete', { expected_revision: 1 })).json().spend_limits;
    expect(removed).toMatchObject({ daily_limit: null, revision: 2, can_create_daily_limit: true });
    expectError(await daily(key, { amount_micros: 1_000_000, expected_revision: 2 }), 400, 'missing_required_parameter', 'start_date');
    expectError(await daily(key, { amount_micros: 1_000_000, expected_revision: 2, start_date: '2026-11-22' }), 422, 'start_date_too_early', 'start_date');
    expect((await daily(key, { amount_micros: 1_000_000, expected_revision: 2, start_date: '2026-11-23' })).statusCode).toBe(200);
  });

  it('must not overlap windows; its earliest start follows them', async () => {
    t.clock.set(NOON_UTC);
    const { key } = await account();
    await createWindow(key, { start_date: '2026-11-25', end_date: '2026-12-05', amount_micros: 0 });
    expect((await config(key)).earliest_daily_start_date).toBe('2026-12-05');
    expectError(await daily(key, { amount_micros: 1_000_000, expected_revision: 1, start_date: '2026-11-24' }), 422, 'spend_limit_overlap');
    const made = (await daily(key, { amount_micros: 1_000_000, expected_revision: 1 })).json().spend_limits;
    expect(made.daily_limit.start_date).toBe('2026-12-05');
    // With an open-ended daily limit, no window may come after it.
    expectError(await createWindow(key, { start_date: '2027-01-01', end_date: '2027-01-05', amount_micros: 0 }), 422, 'spend_limit_overlap');
  });

  it('counts today\'s spend, resets at local midnight, and keeps counted spend on decreases', async () => {
    t.clock.set(NOON_UTC);
    const { key, accountId } = await account();
    await daily(key, { amount_micros: 5_000_000, expected_revision: 0, end_date: '2026-11-26' });
    at('2026-11-23T15:00:00Z');
    await spend(accountId, '2026-11-23', 1_500_000, Date.parse('2026-11-23T14:55:00Z'));
    const c = await config(key);
    expect(c.daily_limit).toMatchObject({
      status: 'active',
      spent_micros: 1_500_000,
      remaining_micros: 3_500_000,
      spend_as_of: '2026-11-23T14:55:00.000Z',
      next_reset: '2026-11-24T00:00:00-05:00',
    });
    expectError(await daily(key, { amount_micros: 1_000_000, expected_revision: 1 }), 422, 'budget_window_amount_below_spend', 'amount_micros');
    expect((await daily(key, { amount_micros: 1_500_000, expected_revision: 1 })).json().spend_limits.daily_limit).toMatchObject({ remaining_micros: 0 });
    at('2026-11-24T05:00:00Z'); // a new local day: a fresh allowance
    expect((await config(key)).daily_limit).toMatchObject({ spent_micros: 0, remaining_micros: 1_500_000, spend_as_of: null });
    at('2026-11-25T15:00:00Z'); // the final day
    expect((await config(key)).daily_limit.next_reset).toBeNull();
    at('2026-11-26T05:00:00Z'); // expired
    expect((await config(key)).daily_limit).toBeNull();
    expectError(await daily(key, { amount_micros: 1_000_000, expected_revision: 2 }), 400, 'missing_required_parameter', 'start_date');
  });

  it.each([
    ['America/New_York', '2026-03-08T12:00:00Z', '2026-03-09T00:00:00-04:00', '2026-03-07T12:00:00Z', '2026-03-08T00:00:00-05:00'],
    ['Europe/Berlin', '2026-03-29T12:00:00Z', '2026-03-30T00:00:00+02:00', '2026-03-28T12:00:00Z', '2026-03-29T00:00:00+01:00'],
    ['Asia/Kolkata', '2026-03-29T12:00:00Z', '2026-03-30T00:00:00+05:30', '2026-03-28T12:00:00Z', '2026-03-29T00:00:00+05:30'],
  ])('treats DST days as ordinary days in %s', async (tz, onDst, resetAfterDst, dayBefore, resetIntoDst) => {
    at('2026-03-01T12:00:00Z');
    const { key } = await account(tz);
    await daily(key, { amount_micros: 1_000_000, expected_revision: 0, start_date: '2026-03-05' });
    at(dayBefore);
    expect((await config(key)).daily_limit.next_reset).toBe(resetIntoDst);
    at(onDst);
    expect((await config(key)).daily_limit.next_reset).toBe(resetAfterDst);
  });

  it('exactly one of 50 concurrent mutations with the same revision wins', async () => {
    t.clock.set(NOON_UTC);
    const { key } = await account();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => daily(key, { amount_micros: (i + 1) * 10_000, expected_revision: 0 })));
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json().error).toMatchObject({ type: 'conflict_error', code: 'revision_mismatch' });
    expect((await config(key)).revision).toBe(1);
  });

  it('answers 503 when the change committed but its response could not be built; the change stays', async () => {
    t.clock.set(NOON_UTC);
    const { key } = await account();
    failNext = true;
    const res = await daily(key, { amount_micros: 2_000_000, expected_revision: 0 });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json().error).toMatchObject({ type: 'service_unavailable_error', code: 'service_unavailable' });
    const c = await config(key);
    expect(c).toMatchObject({ revision: 1, daily_limit: { amount_micros: 2_000_000 } });
  });
});

describe('the account timezone', () => {
  it('cannot change while a daily limit exists', async () => {
    const { runCommand } = await import('../../src/admin/commands.js');
    t.clock.set(NOON_UTC);
    const { key, accountId } = await account();
    const ctx = { store: t.store, clock: t.clock, config: testConfig(t.dataDir) };
    expect((await runCommand(ctx, 'accounts.set-timezone', { account: accountId, timezone: 'Europe/Berlin' })).timezone).toBe('Europe/Berlin');
    await call(key, 'POST', '/ad_account/daily_spend_limit', { amount_micros: 1_000_000, expected_revision: 0 });
    const err = await runCommand(ctx, 'accounts.set-timezone', { account: accountId, timezone: 'Asia/Tokyo' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422, code: 'timezone_locked_by_daily_limit', param: 'timezone' });
    await call(key, 'POST', '/ad_account/daily_spend_limit/delete', { expected_revision: 1 });
    expect((await runCommand(ctx, 'accounts.set-timezone', { account: accountId, timezone: 'Asia/Tokyo' })).timezone).toBe('Asia/Tokyo');
    expect((await config(key)).daily_limit).toBeNull();
  });
});
