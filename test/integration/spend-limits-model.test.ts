import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { bearer, makeAccount } from '../support/context.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Model-based test: random sequences of window and daily-limit operations
 * (and days passing) run against the service and against a small reference
 * model written here from the spec's rules; after every step the outcome
 * and the whole configuration must agree.
 */
const DAY = 86_400_000;
const START = Date.UTC(2026, 10, 22, 12); // 07:00 in New York
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(START) });
});
afterAll(() => t.close());

const iso = (base: string, days: number) => new Date(Date.parse(`${base}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

interface MWindow {
  realId: string;
  start: string;
  end: string;
  amount: number;
}
interface Model {
  today: string;
  revision: number;
  windows: MWindow[];
  daily: { start: string; end: string | null; amount: number } | null;
  hadDaily: boolean;
}
interface Real {
  key: string;
}
type Outcome = { status: number; code: string | null };

const status = (w: { start: string; end: string }, today: string) => (today < w.start ? 'upcoming' : today < w.end ? 'active' : 'completed');
const overlaps = (a: { s: string; e: string | null }, b: { s: string; e: string | null }) => a.s < (b.e ?? '9999') && b.s < (a.e ?? '9999');
const fail = (s: number, code: string): Outcome => ({ status: s, code });
const ok: Outcome = { status: 200, code: null };
const amountError = (amount: number): Outcome | null => (amount < 0 || amount % 10_000 !== 0 ? fail(422, 'invalid_amount') : null);

/** The daily limit in force today (an expired one is gone, and counts as having existed). */
function settle(m: Model): void {
  if (m.daily && m.daily.end !== null && m.today >= m.daily.end) {
    m.daily = null;
    m.hadDaily = true;
  }
}
function overlapError(m: Model, span: { s: string; e: string | null }, skipWindow?: MWindow, skipDaily = false): Outcome | null {
  for (const w of m.windows) {
    if (w === skipWindow || status(w, m.today) === 'completed') continue;
    if (overlaps(span, { s: w.start, e: w.end })) return fail(422, 'spend_limit_overlap');
  }
  if (!skipDaily && m.daily && overlaps(span, { s: m.daily.start, e: m.daily.end })) return fail(422, 'spend_limit_overlap');
  return null;
}
const earliestDaily = (m: Model) =>
  [iso(m.today, 1), ...m.windows.filter((w) => status(w, m.today) !== 'completed').map((w) => w.end)].reduce((a, b) => (a > b ? a : b));

async function send(r: Real, url: string, payload?: object): Promise<{ outcome: Outcome; body: Record<string, unknown> }> {
  const res = await t.app.inject({ method: 'POST', url: `/v1${url}`, headers: bearer(r.key), payload: payload ?? {} });
  const body = res.json() as Record<string, unknown>;
  const code = (body['error'] as { code?: string } | undefined)?.code ?? null;
  return { outcome: { status: res.statusCode, code }, body };
}

async function compare(m: Model, r: Real): Promise<void> {
  settle(m);
  const c = (await t.app.inject({ url: '/v1/ad_account/spend_limit_windows', headers: bearer(r.key) })).json();
  const windows = [...m.windows].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.realId < b.realId ? -1 : 1));
  expect(c.data.map((w: Record<string, unknown>) => [w['window_id'], w['start_date'], w['end_date'], w['amount_micros'], w['status']])).toEqual(
    windows.map((w) => [w.realId, w.start, w.end, w.amount, status(w, m.today)]),
  );
  expect(c.daily_limit === null ? null : [c.daily_limit.start_date, c.daily_limit.end_date, c.daily_limit.amount_micros, c.daily_limit.status]).toEqual(
    m.daily === null ? null : [m.daily.start, m.daily.end, m.daily.amount, m.today >= m.daily.start ? 'active' : 'upcoming'],
  );
  expect([c.revision, c.earliest_daily_start_date, c.earliest_dated_start_date, c.can_create_daily_limit]).toEqual([
    m.revision,
    earliestDaily(m),
    m.daily?.end ?? null,
    m.daily === null,
  ]);
}

class CreateWindow implements fc.AsyncCommand<Model, Real> {
  constructor(readonly from: number, readonly length: number, readonly amount: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    settle(m);
    const start = iso(m.today, this.from);
    const end = iso(start, this.length);
    const expected =
      amountError(this.amount) ??
      (start < m.today ? fail(422, 'start_date_in_past') : null) ??
      (end <= start ? fail(422, 'end_date_not_after_start_date') : null) ??
      (m.daily?.end && start < m.daily.end ? fail(422, 'start_date_too_early') : null) ??
      overlapError(m, { s: start, e: end }) ??
      ok;
    const got = await send(r, '/ad_account/spend_limit_windows', { start_date: start, end_date: end, amount_micros: this.amount });
    expect(got.outcome).toEqual(expected);
    if (got.outcome.status === 200) {
      m.windows.push({ realId: String(got.body['window_id']), start, end, amount: this.amount });
      m.revision++;
    }
    await compare(m, r);
  }
  toString = () => `createWindow(${this.from}, ${this.length}, ${this.amount})`;
}

class UpdateWindow implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number, readonly from: number | null, readonly length: number | null, readonly amount: number | null) {}
  check = (m: Readonly<Model>) => m.windows.length > 0;
  async run(m: Model, r: Real) {
    settle(m);
    const w = m.windows[this.pick % m.windows.length] as MWindow;
    const patch: Record<string, unknown> = {};
    const start = this.from === null ? w.start : iso(m.today, this.from);
    if (this.from !== null) patch['start_date'] = start;
    const end = this.length === null ? w.end : iso(start, this.length);
    if (this.length !== null) patch['end_date'] = end;
    if (this.amount !== null) patch['amount_micros'] = this.amount;
    if (Object.keys(patch).length === 0) patch['name'] = 'renamed';
    const st = status(w, m.today);
    const startChanged = start !== w.start;
    const expected =
      (this.amount !== null ? amountError(this.amount) : null) ??
      (st === 'completed' ? fail(422, 'window_completed') : null) ??
      (startChanged && st !== 'upcoming' ? fail(422, 'start_date_not_editable') : null) ??
      (startChanged && start < m.today ? fail(422, 'start_date_in_past') : null) ??
      (startChanged && m.daily?.end && start < m.daily.end ? fail(422, 'start_date_too_early') : null) ??
      (end <= start ? fail(422, 'end_date_not_after_start_date') : null) ??
      (st === 'active' && end <= m.today ? fail(422, 'end_date_not_in_future') : null) ??
      overlapError(m, { s: start, e: end }, w) ??
      ok;
    const got = await send(r, `/ad_account/spend_limit_windows/${w.realId}`, patch);
    expect(got.outcome).toEqual(expected);
    if (got.outcome.status === 200) {
      Object.assign(w, { start, end, amount: this.amount ?? w.amount });
      m.revision++;
    }
    await compare(m, r);
  }
  toString = () => `updateWindow(${this.pick}, ${this.from}, ${this.length}, ${this.amount})`;
}

class DeleteWindow implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => m.windows.length > 0;
  async run(m: Model, r: Real) {
    settle(m);
    const w = m.windows[this.pick % m.windows.length] as MWindow;
    const expected = status(w, m.today) === 'completed' ? fail(422, 'window_completed') : ok;
    const got = await send(r, `/ad_account/spend_limit_windows/${w.realId}/delete`);
    expect(got.outcome).toEqual(expected);
    if (got.outcome.status === 200) {
      m.windows.splice(m.windows.indexOf(w), 1);
      m.revision++;
    }
    await compare(m, r);
  }
  toString = () => `deleteWindow(${this.pick})`;
}

class SetDaily implements fc.AsyncCommand<Model, Real> {
  constructor(readonly amount: number, readonly from: number | null, readonly end: number | null | 'none', readonly stale: boolean) {}
  check = () => true;
  async run(m: Model, r: Real) {
    settle(m);
    const body: Record<string, unknown> = { amount_micros: this.amount, expected_revision: this.stale ? m.revision + 1 : m.revision };
    const start = this.from === null ? null : iso(m.today, this.from);
    if (start !== null) body['start_date'] = start;
    const endDate = this.end === null ? undefined : this.end === 'none' ? null : iso(m.today, this.end);
    if (endDate !== undefined) body['end_date'] = endDate;
    let expected: Outcome;
    let next: Model['daily'] = null;
    const tomorrow = iso(m.today, 1);
    if (amountError(this.amount)) expected = amountError(this.amount) as Outcome;
    else if (this.stale) expected = fail(409, 'revision_mismatch');
    else if (m.daily) {
      const d = m.daily;
      const end = endDate === undefined ? d.end : endDate;
      expected =
        (start !== null && start !== d.start ? fail(422, 'start_date_not_editable') : null) ??
        (endDate !== undefined && end !== null && end <= d.start ? fail(422, 'end_date_not_after_start_date') : null) ??
        (endDate !== undefined && end !== null && end <= m.today ? fail(422, 'end_date_not_in_future') : null) ??
        overlapError(m, { s: d.start, e: end }, undefined, true) ??
        ok;
      next = { start: d.start, end, amount: this.amount };
    } else {
      const s = start ?? earliestDaily(m);
      const end = endDate ?? null;
      expected =
        (start === null && m.hadDaily ? fail(400, 'missing_required_parameter') : null) ??
        (s < tomorrow ? fail(422, 'start_date_too_early') : null) ??
        (end !== null && end <= s ? fail(422, 'end_date_not_after_start_date') : null) ??
        overlapError(m, { s, e: end }, undefined, true) ??
        ok;
      next = { start: s, end, amount: this.amount };
    }
    const got = await send(r, '/ad_account/daily_spend_limit', body);
    expect(got.outcome).toEqual(expected);
    if (got.outcome.status === 200) {
      m.daily = next;
      m.revision++;
    }
    await compare(m, r);
  }
  toString = () => `setDaily(${this.amount}, ${this.from}, ${this.end}, ${this.stale})`;
}

class DeleteDaily implements fc.AsyncCommand<Model, Real> {
  constructor(readonly stale: boolean) {}
  check = () => true;
  async run(m: Model, r: Real) {
    settle(m);
    const expected = this.stale ? fail(409, 'revision_mismatch') : m.daily === null ? fail(404, 'resource_missing') : ok;
    const got = await send(r, '/ad_account/daily_spend_limit/delete', { expected_revision: this.stale ? m.revision + 1 : m.revision });
    expect(got.outcome).toEqual(expected);
    if (got.outcome.status === 200) {
      m.daily = null;
      m.hadDaily = true;
      m.revision++;
    }
    await compare(m, r);
  }
  toString = () => `deleteDaily(${this.stale})`;
}

class PassDays implements fc.AsyncCommand<Model, Real> {
  constructor(readonly days: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    t.clock.advance(this.days * DAY);
    m.today = iso(m.today, this.days);
    await compare(m, r);
  }
  toString = () => `passDays(${this.days})`;
}

const amount = fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 500 }).map((n) => n * 10_000) }, { weight: 1, arbitrary: fc.constantFrom(-10_000, 5_001) });
const offset = fc.integer({ min: -2, max: 20 });
const commands = [
  fc.tuple(offset, fc.integer({ min: 0, max: 10 }), amount).map(([f, l, a]) => new CreateWindow(f, l, a)),
  fc.tuple(fc.nat(), fc.option(offset), fc.option(fc.integer({ min: 0, max: 10 })), fc.option(amount)).map(([p, f, l, a]) => new UpdateWindow(p, f, l, a)),
  fc.nat().map((p) => new DeleteWindow(p)),
  fc
    .tuple(amount, fc.option(offset), fc.oneof(fc.constant(null), fc.constant('none' as const), offset), fc.integer({ min: 0, max: 9 }).map((n) => n < 2))
    .map(([a, f, e, s]) => new SetDaily(a, f, e, s)),
  fc.boolean().map((s) => new DeleteDaily(s)),
  fc.integer({ min: 1, max: 6 }).map((d) => new PassDays(d)),
];

describe('spend limits against a reference model', () => {
  it('agree on every outcome and every configuration', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 50, size: 'max' }), async (cmds) => {
        t.clock.set(START);
        const { key } = await makeAccount(t, { timezone: 'America/New_York' });
        const model: Model = { today: '2026-11-22', revision: 0, windows: [], daily: null, hadDaily: false };
        await fc.asyncModelRun(() => ({ model, real: { key } }), cmds);
      }),
      { numRuns: 60 },
    );
    // Up to 3,000 real requests: well past the default timeout on 2 busy cores.
  }, 180_000);
});
