import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { fileContentUrl, requireFile } from '../files/files.js';
import { ApiError } from '../../errors/api-error.js';
import { parseOrThrow } from '../../errors/zod-issues.js';
import { ID_PREFIX, newId } from '../../ids.js';
import { accountRepository, type AccountRecord } from '../../store/repositories/account-repository.js';
import type { Store } from '../../store/store.js';
import { BrandInput, CreateAccountInput, SetTimezoneInput } from './account-schemas.js';
import { sql } from '../../store/sql-loader.js';
import { recordWebhookEvent } from '../webhooks/webhook-outbox.js';

/** The wire shape of an ad account (spec "Ad account"; COMPAT.md example). */
export interface AdAccount {
  id: string;
  name: string;
  url: string;
  preview_url: string | null;
  status: 'active' | 'paused';
  timezone: string;
  currency_code: string;
  review: { status: AccountRecord['review_status']; reason?: string };
}

export function toWireAccount(a: AccountRecord, config: Pick<Config, 'publicUrl'>): AdAccount {
  return {
    id: a.id,
    name: a.name,
    url: a.url,
    preview_url: a.favicon_file_id === null ? null : fileContentUrl(config, a.favicon_file_id),
    status: a.status,
    timezone: a.timezone,
    currency_code: a.currency_code,
    review: a.review_reason === null ? { status: a.review_status } : { status: a.review_status, reason: a.review_reason },
  };
}

/** Queues the job that settles a brand review; implemented over BullMQ in jobs/. */
export interface BrandReviewScheduler {
  schedule(accountId: string, reviewSeq: number): Promise<void>;
}

export interface AccountDeps {
  store: Store;
  clock: Clock;
}

export async function createAccount(deps: AccountDeps, raw: unknown): Promise<AccountRecord> {
  const input = parseOrThrow(CreateAccountInput, raw);
  const features = new Set(input.enable);
  const id = newId(ID_PREFIX.adAccount);
  await accountRepository.insert(deps.store, {
    id,
    name: input.name,
    url: input.url,
    timezone: input.timezone,
    currency_code: input.currency,
    status: 'active',
    // Accounts made by the operator start approved; a brand submission starts a new review.
    review_status: 'approved',
    brand_enabled: features.has('brand'),
    conversion_bidding_enabled: features.has('conversion_bidding'),
    product_segments_enabled: features.has('product_segments'),
    zero_impression_products_enabled: features.has('zero_impression_products'),
    postpaid_invoice: features.has('postpaid_invoice'),
    now_ms: deps.clock.nowMs(),
  });
  return requireAccount(deps, id);
}

export async function requireAccount(deps: Pick<AccountDeps, 'store'>, id: string): Promise<AccountRecord> {
  const account = await accountRepository.get(deps.store, id);
  if (!account) throw ApiError.notFound('ad account', id);
  return account;
}

/**
 * `POST /ad_account/brand`: updates the brand name and/or favicon and starts a
 * new review (spec "Ad account review"). 403 when brand updates are not enabled.
 */
export async function submitBrand(
  deps: AccountDeps & { reviews: BrandReviewScheduler },
  accountId: string,
  raw: unknown,
): Promise<AccountRecord> {
  const account = await requireAccount(deps, accountId);
  if (!account.brand_enabled) {
    throw new ApiError('brand_updates_not_enabled', 'Brand updates are not enabled for this ad account.');
  }
  const input = parseOrThrow(BrandInput, raw ?? {});
  if (input.name === undefined && input.favicon_file_id === undefined) {
    throw new ApiError('missing_required_parameter', 'Send at least one of name or favicon_file_id.', { param: 'name' });
  }
  if (input.favicon_file_id !== undefined) {
    await requireFile(deps, accountId, input.favicon_file_id, { purpose: 'account_favicon', param: 'favicon_file_id' });
  }
  const updated = await deps.store.transaction(async (tx) => {
    const row = await accountRepository.submitBrand(tx, {
      id: accountId,
      name: input.name ?? null,
      favicon_file_id: input.favicon_file_id ?? null,
      now_ms: deps.clock.nowMs(),
    });
    if (row) await recordWebhookEvent(tx, deps.clock, { accountId, type: 'ad_account.review.updated', resourceId: accountId });
    return row;
  });
  if (!updated) throw ApiError.notFound('ad account', accountId);
  // The row says in_review before the job exists: if queueing fails, the reconciler re-queues it.
  await deps.reviews.schedule(updated.id, updated.review_seq);
  return updated;
}

/** What a brand review concludes from the account as it stands. */
export function reviewVerdict(a: AccountRecord): { status: 'approved' | 'rejected'; reason: string | null } {
  if (a.favicon_file_id === null) return { status: 'rejected', reason: 'missing_favicon' };
  return { status: 'approved', reason: null };
}

/**
 * Settles review `reviewSeq` of an account. A newer submission supersedes an
 * older job, so a stale or repeated job changes nothing (returns undefined).
 */
export async function settleBrandReview(deps: AccountDeps, accountId: string, reviewSeq: number): Promise<AccountRecord | undefined> {
  const account = await accountRepository.get(deps.store, accountId);
  if (!account || account.review_status !== 'in_review' || account.review_seq !== reviewSeq) return undefined;
  const verdict = reviewVerdict(account);
  return deps.store.transaction(async (tx) => {
    const decided = await accountRepository.decideReview(tx, {
      id: accountId,
      review_seq: reviewSeq,
      review_status: verdict.status,
      review_reason: verdict.reason,
      now_ms: deps.clock.nowMs(),
    });
    if (decided) await recordWebhookEvent(tx, deps.clock, { accountId, type: 'ad_account.review.updated', resourceId: accountId });
    return decided;
  });
}

/**
 * Operator command: a new account timezone. Refused while a daily spend limit
 * exists (spec: Account spending limits, rules common to both kinds), since
 * its days are the account's local days.
 */
export async function setAccountTimezone(
  deps: AccountDeps & { dailyLimitExists(account: AccountRecord): Promise<boolean> },
  raw: unknown,
): Promise<AccountRecord> {
  const input = parseOrThrow(SetTimezoneInput, raw);
  const account = await requireAccount(deps, input.account);
  if (await deps.dailyLimitExists(account)) {
    throw new ApiError('timezone_locked_by_daily_limit', 'The account timezone cannot change while a daily spend limit exists; remove it first.', { param: 'timezone' });
  }
  await deps.store.run(sql('account-set-timezone'), { id: account.id, timezone: input.timezone, now_ms: deps.clock.nowMs() });
  return requireAccount(deps, account.id);
}
