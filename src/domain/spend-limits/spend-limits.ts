import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors/api-error.js';
import { parseOrThrow } from '../../errors/zod-issues.js';
import { newId } from '../../ids.js';
import type { AccountRecord } from '../../store/repositories/account-repository.js';
import { sql } from '../../store/sql-loader.js';
import type { Queryable, Store } from '../../store/store.js';
import { requireAccount } from '../accounts/accounts.js';
import type { AuthContext } from '../api-keys.js';
import { addDays, maxDate, midnightOf, todayIn } from './local-dates.js';
import { checkAmount, CreateWindowInput, DailyLimitInput, DeleteDailyInput, UpdateWindowInput } from './spend-limit-inputs.js';

/**
 * Account spending limits (spec: Account spending limits): date range windows
 * and one daily limit, all dates local to the account timezone, end dates
 * exclusive. Every mutation runs in one write transaction that reads the
 * state, checks the rules, writes, and bumps the revision.
 */
export const WINDOW_PREFIX = 'slw_';
export const MAX_FUTURE_WINDOWS = 60;

const WindowRow = z.object({
  window_id: z.string(),
  start_date: z.string(),
  end_date: z.string(),
  amount_micros: z.number(),
  name: z.string().nullable(),
  io_id: z.string().nullable(),
});
type WindowRow = z.infer<typeof WindowRow>;
const DailyRow = z.object({ id: z.string(), amount_micros: z.number(), start_date: z.string(), end_date: z.string().nullable() });
type DailyRow = z.infer<typeof DailyRow>;

interface State {
  revision: number;
  windows: WindowRow[];
  /** The active or upcoming daily limit; an expired one counts as none. */
  daily: DailyRow | null;
  /** A daily limit existed before (removed or expired): a new one must name its start date. */
  hadDaily: boolean;
  today: string;
}

type WindowStatus = 'upcoming' | 'active' | 'completed';
const windowStatus = (w: { start_date: string; end_date: string }, today: string): WindowStatus =>
  today < w.start_date ? 'upcoming' : today < w.end_date ? 'active' : 'completed';

async function loadState(db: Queryable, account: AccountRecord, clock: Clock): Promise<State> {
  const today = todayIn(clock, account.timezone);
  const rev = await db.get(sql('spend-config-get'), { account: account.id });
  const windows = (await db.all(sql('spend-windows-list'), { account: account.id })).map((r) => WindowRow.parse(r));
  const dailies = (await db.all(sql('daily-limits-list'), { account: account.id })).map((r) => ({ ...DailyRow.parse(r), removed: r['removed'] === true }));
  const live = dailies.find((d) => !d.removed && (d.end_date === null || today < d.end_date)) ?? null;
  return {
    revision: rev === undefined ? 0 : Number(rev['revision']),
    windows,
    daily: live,
    hadDaily: dailies.some((d) => d !== live),
    today,
  };
}

// ---- the configuration as clients read it ----

interface SpendRow {
  day: string;
  spent_micros: number;
  updated_at_ms: number;
}

export interface WireWindow {
  window_id: string;
  object: 'ad_account_spend_limit_window';
  start_date: string;
  end_date: string;
  amount_micros: number;
  name: string | null;
  io_id: string | null;
  status: WindowStatus;
  can_edit: boolean;
  can_edit_start_date: boolean;
  can_delete: boolean;
  spent_micros?: number;
}

export interface WireDailyLimit {
  amount_micros: number;
  start_date: string;
  end_date: string | null;
  timezone: string;
  status: 'upcoming' | 'active';
  spent_micros: number | null;
  remaining_micros: number | null;
  spend_as_of: string | null;
  next_reset: string | null;
}

export interface SpendLimitConfig {
  object: 'list';
  data: WireWindow[];
  daily_limit: WireDailyLimit | null;
  revision: number;
  earliest_daily_start_date: string;
  earliest_dated_start_date: string | null;
  can_create_daily_limit: boolean;
  evaluated_at: string;
}

function toWireWindow(w: WindowRow, today: string, spend: SpendRow[]): WireWindow {
  const status = windowStatus(w, today);
  const out: WireWindow = {
    window_id: w.window_id,
    object: 'ad_account_spend_limit_window',
    start_date: w.start_date,
    end_date: w.end_date,
    amount_micros: w.amount_micros,
    name: w.name,
    io_id: w.io_id,
    status,
    can_edit: status !== 'completed',
    can_edit_start_date: status === 'upcoming',
    can_delete: status !== 'completed',
  };
  if (status === 'active') out.spent_micros = windowSpend(w, today, spend);
  return out;
}

const windowSpend = (w: { start_date: string; end_date: string }, today: string, spend: SpendRow[]): number =>
  spend.filter((s) => s.day >= w.start_date && s.day < w.end_date && s.day <= today).reduce((sum, s) => sum + s.spent_micros, 0);

/** A daily limit may start tomorrow at the earliest, and after every window still to come. */
const earliestDailyStart = (s: State): string => maxDate(addDays(s.today, 1), ...s.windows.filter((w) => windowStatus(w, s.today) !== 'completed').map((w) => w.end_date));

async function readSpend(db: Queryable, accountId: string, from: string, to: string): Promise<SpendRow[]> {
  const rows = await db.all(sql('account-spend-range'), { account: accountId, from, to });
  return rows.map((r) => ({ day: String(r['day']), spent_micros: Number(r['spent_micros']), updated_at_ms: Number(r['updated_at_ms']) }));
}

async function buildConfig(db: Queryable, account: AccountRecord, s: State, clock: Clock): Promise<SpendLimitConfig> {
  const firstActive = s.windows.filter((w) => windowStatus(w, s.today) === 'active').map((w) => w.start_date);
  const spend = await readSpend(db, account.id, firstActive.reduce((a, b) => (a < b ? a : b), s.today), s.today);
  let daily: WireDailyLimit | null = null;
  if (s.daily) {
    const active = s.daily.start_date <= s.today;
    const todays = spend.find((r) => r.day === s.today);
    const spent = active ? (todays?.spent_micros ?? 0) : null;
    const tomorrow = addDays(s.today, 1);
    const finalDay = s.daily.end_date !== null && tomorrow >= s.daily.end_date;
    daily = {
      amount_micros: s.daily.amount_micros,
      start_date: s.daily.start_date,
      end_date: s.daily.end_date,
      timezone: account.timezone,
      status: active ? 'active' : 'upcoming',
      spent_micros: spent,
      remaining_micros: spent === null ? null : Math.max(0, s.daily.amount_micros - spent),
      spend_as_of: active && todays ? new Date(todays.updated_at_ms).toISOString() : null,
      next_reset: active && !finalDay ? midnightOf(tomorrow, account.timezone) : null,
    };
  }
  return {
    object: 'list',
    data: s.windows.map((w) => toWireWindow(w, s.today, spend)),
    daily_limit: daily,
    revision: s.revision,
    earliest_daily_start_date: earliestDailyStart(s),
    earliest_dated_start_date: s.daily?.end_date ?? null,
    can_create_daily_limit: s.daily === null,
    evaluated_at: new Date(clock.nowMs()).toISOString(),
  };
}

// ---- access ----

export interface SpendLimitDeps {
  store: Store;
  clock: Clock;
  /** Fault injection for tests: runs after a daily mutation commits, before the response is built. */
  afterDailyCommit?: () => void;
}

/** Billing permission on the key (403), and an account on postpaid invoice billing (403 too: the account is not allowed this feature). */
async function billingAccount(deps: SpendLimitDeps, auth: AuthContext): Promise<AccountRecord> {
  if (!auth.billing) throw new ApiError('billing_permission_required', 'This API key lacks the permission to manage billing, which spending limits need.');
  const account = await requireAccount(deps, auth.accountId);
  if (!account.postpaid_invoice) {
    throw new ApiError('postpaid_invoice_required', 'Account spending limits apply only to ad accounts on postpaid invoice billing.');
  }
  return account;
}

export async function getSpendLimits(deps: SpendLimitDeps, auth: AuthContext): Promise<SpendLimitConfig> {
  const account = await billingAccount(deps, auth);
  return deps.store.transaction(async (tx) => buildConfig(tx, account, await loadState(tx, account, deps.clock), deps.clock));
}

// ---- rules shared by both kinds ----

interface Span {
  start: string;
  end: string | null;
}
const overlaps = (a: Span, b: Span): boolean => a.start < (b.end ?? '9999-12-31') && b.start < (a.end ?? '9999-12-31');

function checkNoOverlap(s: State, span: Span, except: { windowId?: string; daily?: boolean }): void {
  for (const w of s.windows) {
    if (w.window_id === except.windowId || windowStatus(w, s.today) === 'completed') continue;
    if (overlaps(span, { start: w.start_date, end: w.end_date })) {
      throw new ApiError('spend_limit_overlap', `The dates overlap spend limit window ${w.window_id} (${w.start_date} to ${w.end_date}).`, { param: 'start_date' });
    }
  }
  if (!except.daily && s.daily && overlaps(span, { start: s.daily.start_date, end: s.daily.end_date })) {
    throw new ApiError('spend_limit_overlap', `The dates overlap the daily spend limit (from ${s.daily.start_date}${s.daily.end_date ? ` to ${s.daily.end_date}` : ''}).`, {
      param: 'start_date',
    });
  }
}

async function bumpRevision(tx: Queryable, accountId: string): Promise<void> {
  await tx.run(sql('spend-config-bump'), { account: accountId });
}

// ---- date range windows ----

export async function createWindow(deps: SpendLimitDeps, auth: AuthContext, raw: unknown): Promise<WireWindow> {
  const account = await billingAccount(deps, auth);
  const input = parseOrThrow(CreateWindowInput, raw ?? {});
  checkAmount(input.amount_micros, account.currency_code);
  return deps.store.transaction(async (tx) => {
    const s = await loadState(tx, account, deps.clock);
    if (input.start_date < s.today) throw new ApiError('start_date_in_past', `start_date must be today (${s.today}) or later in ${account.timezone}.`, { param: 'start_date' });
    if (input.end_date <= input.start_date) throw new ApiError('end_date_not_after_start_date', 'end_date must be after start_date (it is exclusive).', { param: 'end_date' });
    const floor = s.daily?.end_date ?? null;
    if (floor !== null && input.start_date < floor) {
      throw new ApiError('start_date_too_early', `start_date must be ${floor} or later (earliest_dated_start_date).`, { param: 'start_date' });
    }
    checkNoOverlap(s, { start: input.start_date, end: input.end_date }, {});
    if (input.start_date > s.today && s.windows.filter((w) => windowStatus(w, s.today) === 'upcoming').length >= MAX_FUTURE_WINDOWS) {
      throw new ApiError('too_many_windows', `At most ${MAX_FUTURE_WINDOWS} future spend limit windows may be scheduled.`);
    }
    const now = deps.clock.nowMs();
    const [row] = await tx.write(sql('spend-window-insert'), {
      window_id: newId(WINDOW_PREFIX),
      account: account.id,
      start_date: input.start_date,
      end_date: input.end_date,
      amount_micros: input.amount_micros,
      name: input.name ?? null,
      io_id: input.io_id ?? null,
      now_ms: now,
    });
    await bumpRevision(tx, account.id);
    return toWireWindow(WindowRow.parse(row), s.today, []);
  });
}

async function requireWindow(s: State, windowId: string): Promise<WindowRow> {
  const w = s.windows.find((x) => x.window_id === windowId);
  if (!w) throw ApiError.notFound('spend limit window', windowId);
  return w;
}

export async function updateWindow(deps: SpendLimitDeps, auth: AuthContext, windowId: string, raw: unknown): Promise<WireWindow> {
  const account = await billingAccount(deps, auth);
  const input = parseOrThrow(UpdateWindowInput, raw ?? {});
  if (Object.keys(input).length === 0) {
    throw new ApiError('missing_required_parameter', 'Send at least one of start_date, end_date, amount_micros, name, io_id.', { param: 'start_date' });
  }
  if (input.amount_micros !== undefined) checkAmount(input.amount_micros, account.currency_code);
  return deps.store.transaction(async (tx) => {
    const s = await loadState(tx, account, deps.clock);
    const w = await requireWindow(s, windowId);
    const status = windowStatus(w, s.today);
    if (status === 'completed') throw new ApiError('window_completed', `Window ${windowId} is completed; completed windows cannot be edited.`);
    const start = input.start_date ?? w.start_date;
    const end = input.end_date ?? w.end_date;
    if (input.start_date !== undefined && input.start_date !== w.start_date) {
      if (status !== 'upcoming') throw new ApiError('start_date_not_editable', 'Only upcoming windows can change their start date.', { param: 'start_date' });
      if (start < s.today) throw new ApiError('start_date_in_past', `start_date must be today (${s.today}) or later.`, { param: 'start_date' });
      const floor = s.daily?.end_date ?? null;
      if (floor !== null && start < floor) throw new ApiError('start_date_too_early', `start_date must be ${floor} or later (earliest_dated_start_date).`, { param: 'start_date' });
    }
    if (end <= start) throw new ApiError('end_date_not_after_start_date', 'end_date must be after start_date (it is exclusive).', { param: 'end_date' });
    if (status === 'active' && end <= s.today) {
      throw new ApiError('end_date_not_in_future', `An active window's end_date must stay in the future (after ${s.today}).`, { param: 'end_date' });
    }
    checkNoOverlap(s, { start, end }, { windowId });
    if (input.amount_micros !== undefined && status === 'active') {
      const spent = windowSpend(w, s.today, await readSpend(tx, account.id, w.start_date, s.today));
      if (input.amount_micros < spent) {
        throw new ApiError('budget_window_amount_below_spend', `amount_micros ${input.amount_micros} is below the ${spent} micros already spent in this window.`, {
          param: 'amount_micros',
        });
      }
    }
    const [row] = await tx.write(sql('spend-window-update'), {
      window_id: windowId,
      start_date: start,
      end_date: end,
      amount_micros: input.amount_micros ?? w.amount_micros,
      name: input.name === undefined ? w.name : input.name,
      io_id: input.io_id === undefined ? w.io_id : input.io_id,
      now_ms: deps.clock.nowMs(),
    });
    await bumpRevision(tx, account.id);
    const updated = WindowRow.parse(row);
    return toWireWindow(updated, s.today, await readSpend(tx, account.id, updated.start_date, s.today));
  });
}

export async function deleteWindow(
  deps: SpendLimitDeps,
  auth: AuthContext,
  windowId: string,
): Promise<{ window_id: string; object: 'ad_account_spend_limit_window.deleted'; deleted: true }> {
  const account = await billingAccount(deps, auth);
  return deps.store.transaction(async (tx) => {
    const s = await loadState(tx, account, deps.clock);
    const w = await requireWindow(s, windowId);
    if (windowStatus(w, s.today) === 'completed') throw new ApiError('window_completed', `Window ${windowId} is completed; completed windows cannot be deleted.`);
    // Recorded spend stays: it lives in account_daily_spend, not in the window.
    await tx.run(sql('spend-window-delete'), { window_id: windowId, now_ms: deps.clock.nowMs() });
    await bumpRevision(tx, account.id);
    return { window_id: windowId, object: 'ad_account_spend_limit_window.deleted', deleted: true };
  });
}

// ---- the daily limit ----

function checkRevision(s: State, expected: number): void {
  if (expected !== s.revision) {
    throw new ApiError('revision_mismatch', `expected_revision ${expected} is stale; the configuration is at revision ${s.revision}. Read it again and reconcile before resubmitting.`, {
      param: 'expected_revision',
    });
  }
}

/** After a daily mutation has committed: the response, or a 503 that says the change is saved. */
async function respondAfterCommit(deps: SpendLimitDeps, account: AccountRecord): Promise<{ spend_limits: SpendLimitConfig }> {
  try {
    deps.afterDailyCommit?.();
    return { spend_limits: await getSpendLimits(deps, { keyId: '', accountId: account.id, billing: true }) };
  } catch (err) {
    throw new ApiError('service_unavailable', 'The change was saved, but its result could not be loaded. Read GET /ad_account/spend_limit_windows before retrying.', {
      headers: { 'retry-after': '1' },
      cause: err,
    });
  }
}

export async function setDailyLimit(deps: SpendLimitDeps, auth: AuthContext, raw: unknown): Promise<{ spend_limits: SpendLimitConfig }> {
  const account = await billingAccount(deps, auth);
  const input = parseOrThrow(DailyLimitInput, raw ?? {});
  checkAmount(input.amount_micros, account.currency_code);
  await deps.store.transaction(async (tx) => {
    const s = await loadState(tx, account, deps.clock);
    checkRevision(s, input.expected_revision);
    const now = deps.clock.nowMs();
    const tomorrow = addDays(s.today, 1);
    if (s.daily) {
      // Editing: the start date is fixed; the end date is kept, cleared or moved.
      const d = s.daily;
      if (input.start_date !== undefined && input.start_date !== d.start_date) {
        throw new ApiError('start_date_not_editable', 'An existing daily limit keeps its start date; omit start_date when editing.', { param: 'start_date' });
      }
      const end = input.end_date === undefined ? d.end_date : input.end_date;
      if (input.end_date !== undefined && end !== null) {
        if (end <= d.start_date) throw new ApiError('end_date_not_after_start_date', 'end_date must be after start_date (it is exclusive).', { param: 'end_date' });
        if (end <= s.today) throw new ApiError('end_date_not_in_future', `end_date must be in the future (after ${s.today}).`, { param: 'end_date' });
      }
      checkNoOverlap(s, { start: d.start_date, end }, { daily: true });
      if (d.start_date <= s.today) {
        const spentToday = (await readSpend(tx, account.id, s.today, s.today))[0]?.spent_micros ?? 0;
        if (input.amount_micros < spentToday) {
          throw new ApiError('budget_window_amount_below_spend', `amount_micros ${input.amount_micros} is below the ${spentToday} micros already spent today.`, {
            param: 'amount_micros',
          });
        }
      }
      await tx.run(sql('daily-limit-update'), { id: d.id, amount_micros: input.amount_micros, end_date: end, now_ms: now });
    } else {
      if (input.start_date === undefined && s.hadDaily) {
        throw new ApiError('missing_required_parameter', 'start_date is required when creating a daily limit after one was removed or expired.', { param: 'start_date' });
      }
      const start = input.start_date ?? earliestDailyStart(s);
      if (start < tomorrow) throw new ApiError('start_date_too_early', `A new daily limit starts tomorrow (${tomorrow}) or later.`, { param: 'start_date' });
      const end = input.end_date ?? null;
      if (end !== null && end <= start) throw new ApiError('end_date_not_after_start_date', 'end_date must be after start_date (it is exclusive).', { param: 'end_date' });
      checkNoOverlap(s, { start, end }, { daily: true });
      await tx.run(sql('daily-limit-insert'), { id: newId('dsl_'), account: account.id, amount_micros: input.amount_micros, start_date: start, end_date: end, now_ms: now });
    }
    await bumpRevision(tx, account.id);
  });
  return respondAfterCommit(deps, account);
}

export async function deleteDailyLimit(deps: SpendLimitDeps, auth: AuthContext, raw: unknown): Promise<{ spend_limits: SpendLimitConfig }> {
  const account = await billingAccount(deps, auth);
  const input = parseOrThrow(DeleteDailyInput, raw ?? {});
  await deps.store.transaction(async (tx) => {
    const s = await loadState(tx, account, deps.clock);
    checkRevision(s, input.expected_revision);
    if (!s.daily) throw ApiError.notFound('daily spend limit', account.id);
    await tx.run(sql('daily-limit-remove'), { id: s.daily.id, now_ms: deps.clock.nowMs() });
    await bumpRevision(tx, account.id);
  });
  return respondAfterCommit(deps, account);
}

/** True while the account has an active or upcoming daily limit (its timezone is then fixed). */
export async function dailyLimitExists(deps: Pick<SpendLimitDeps, 'store' | 'clock'>, account: AccountRecord): Promise<boolean> {
  return (await loadState(deps.store, account, deps.clock)).daily !== null;
}
