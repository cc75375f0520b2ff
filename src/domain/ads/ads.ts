import { z } from 'zod';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { ApiError } from '../../errors/api-error.js';
import { parseOrThrow } from '../../errors/zod-issues.js';
import { newId } from '../../ids.js';
import { listPage, toListEnvelope, type ListEnvelope, type ListParams } from '../../store/list-page.js';
import { sql } from '../../store/sql-loader.js';
import type { Row, Store } from '../../store/store.js';
import { getAdGroupRecord } from '../ad-groups/ad-groups.js';
import { fileContentUrl, requireFile } from '../files/files.js';
import { guardArchived, LIFECYCLE_STATUSES, type LifecycleStatus } from '../lifecycle.js';
import { httpUrl, label } from '../text.js';
import { recordWebhookEvent } from '../webhooks/webhook-outbox.js';

/**
 * Ads (COMPAT.md, Ads): a chat card creative over an uploaded image. A new or
 * changed creative goes (back) to review; a name or status change does not.
 */
export const AD_PREFIX = 'ad_';
export const REVIEW_STATUSES = ['in_review', 'rejected', 'approved'] as const;

export const CreativeInput = z
  .object({
    type: z.literal('chat_card'),
    title: label(3, 50),
    body: z.string().max(100).nullish(),
    target_url: httpUrl(2048),
    file_id: z.string().min(1).max(128),
  })
  .strict();
type CreativeInput = z.infer<typeof CreativeInput>;

export const CreateAdInput = z
  .object({
    ad_group_id: z.string().min(1).max(128),
    name: label(1, 1000),
    status: z.enum(['active', 'paused']).default('active'),
    creative: CreativeInput,
  })
  .strict();

export const UpdateAdInput = z
  .object({
    name: label(1, 1000).optional(),
    status: z.enum(LIFECYCLE_STATUSES).optional(),
    ad_group_id: z.string().optional(),
    creative: CreativeInput.optional(),
  })
  .strict();

const AdRecord = z.object({
  id: z.string(),
  ad_account_id: z.string(),
  ad_group_id: z.string(),
  campaign_id: z.string(),
  name: z.string(),
  status: z.enum(LIFECYCLE_STATUSES),
  review_status: z.enum(REVIEW_STATUSES),
  review_reason: z.string().nullable(),
  review_seq: z.number().int(),
  review_requested_at_ms: z.number().nullable(),
  creative_type: z.literal('chat_card'),
  title: z.string(),
  body: z.string().nullable(),
  target_url: z.string(),
  file_id: z.string(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
export type AdRecord = z.infer<typeof AdRecord>;

export interface Ad {
  id: string;
  object: 'ad';
  name: string;
  created_at: number;
  updated_at: number;
  ad_group_id: string;
  campaign_id: string;
  status: LifecycleStatus;
  review_status: AdRecord['review_status'];
  review_reason?: string;
  creative: { type: 'chat_card'; title: string; body: string | null; target_url: string; file_id: string; image_url: string };
}

/** Queues the job that settles an ad review; implemented over BullMQ in jobs/. */
export interface AdReviewScheduler {
  schedule(adId: string, reviewSeq: number): Promise<void>;
}

export interface AdDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, 'publicUrl'>;
}

const toWire = (config: AdDeps['config'], r: AdRecord): Ad => ({
  id: r.id,
  object: 'ad',
  name: r.name,
  created_at: Math.floor(r.created_at_ms / 1000),
  updated_at: Math.floor(r.updated_at_ms / 1000),
  ad_group_id: r.ad_group_id,
  campaign_id: r.campaign_id,
  status: r.status,
  review_status: r.review_status,
  ...(r.review_reason === null ? {} : { review_reason: r.review_reason }),
  creative: { type: r.creative_type, title: r.title, body: r.body, target_url: r.target_url, file_id: r.file_id, image_url: fileContentUrl(config, r.file_id) },
});

const parse = (row: Row | undefined, id: string): AdRecord => {
  if (!row) throw ApiError.notFound('ad', id);
  return AdRecord.parse(row);
};

/** The creative's image: an upload of this account with no purpose (spec, File). */
async function checkCreativeFile(store: Store, accountId: string, fileId: string): Promise<void> {
  await requireFile({ store }, accountId, fileId, { purpose: null, param: 'creative.file_id' });
}

export async function createAd(deps: AdDeps & { adReviews: AdReviewScheduler }, accountId: string, raw: unknown): Promise<Ad> {
  const input = parseOrThrow(CreateAdInput, raw ?? {});
  const group = await ApiError.naming('ad_group_id', getAdGroupRecord(deps, accountId, input.ad_group_id));
  if (group.status === 'archived') throw new ApiError('resource_archived', `Ad group '${group.id}' is archived; it takes no new ads.`, { param: 'ad_group_id' });
  await checkCreativeFile(deps.store, accountId, input.creative.file_id);
  const [row] = await deps.store.write(sql('ad-insert'), {
    id: newId(AD_PREFIX),
    account: accountId,
    ad_group_id: group.id,
    campaign_id: group.campaign_id,
    name: input.name,
    status: input.status,
    title: input.creative.title,
    body: input.creative.body ?? null,
    target_url: input.creative.target_url,
    file_id: input.creative.file_id,
    now_ms: deps.clock.nowMs(),
  });
  const ad = parse(row, 'new');
  await deps.adReviews.schedule(ad.id, ad.review_seq);
  return toWire(deps.config, ad);
}

export async function getAd(deps: AdDeps, accountId: string, id: string): Promise<Ad> {
  return toWire(deps.config, parse(await deps.store.get(sql('ad-get'), { id, account: accountId }), id));
}

export async function listAds(deps: AdDeps, accountId: string, params: ListParams & { ad_group_id?: string | undefined }): Promise<ListEnvelope<Ad>> {
  const { rows, hasMore } = await listPage(deps.store, 'ads', accountId, params, { ad_group_id: params.ad_group_id });
  return toListEnvelope(
    rows.map((r) => toWire(deps.config, AdRecord.parse(r))),
    hasMore,
  );
}

const sameCreative = (r: AdRecord, c: CreativeInput): boolean =>
  r.title === c.title && r.body === (c.body ?? null) && r.target_url === c.target_url && r.file_id === c.file_id;

export async function updateAd(deps: AdDeps & { adReviews: AdReviewScheduler }, accountId: string, id: string, raw: unknown): Promise<Ad> {
  const current = parse(await deps.store.get(sql('ad-get'), { id, account: accountId }), id);
  const input = parseOrThrow(UpdateAdInput, raw ?? {});
  if (guardArchived('Ad', id, current.status, input)) return toWire(deps.config, current);
  if (input.ad_group_id !== undefined && input.ad_group_id !== current.ad_group_id) {
    throw new ApiError('immutable_parameter', 'An ad cannot move to another ad group.', { param: 'ad_group_id' });
  }
  const creative = input.creative;
  const newReview = creative !== undefined && !sameCreative(current, creative);
  if (creative !== undefined && creative.file_id !== current.file_id) await checkCreativeFile(deps.store, accountId, creative.file_id);
  const ad = await deps.store.transaction(async (tx) => {
    const [row] = await tx.write(sql('ad-update'), {
      id,
      account: accountId,
      name: input.name ?? current.name,
      status: input.status ?? current.status,
      title: creative?.title ?? current.title,
      body: creative === undefined ? current.body : (creative.body ?? null),
      target_url: creative?.target_url ?? current.target_url,
      file_id: creative?.file_id ?? current.file_id,
      new_review: newReview,
      now_ms: deps.clock.nowMs(),
    });
    const updated = parse(row, id);
    // A changed creative goes back to review (COMPAT.md, Ads): the review was updated.
    if (newReview) await recordWebhookEvent(tx, deps.clock, { accountId, type: 'ad.review.updated', resourceId: id });
    return updated;
  });
  if (newReview) await deps.adReviews.schedule(ad.id, ad.review_seq);
  return toWire(deps.config, ad);
}

export async function setAdStatus(deps: AdDeps & { adReviews: AdReviewScheduler }, accountId: string, id: string, status: LifecycleStatus): Promise<Ad> {
  return updateAd(deps, accountId, id, { status });
}

/** What an ad review concludes from the creative as it stands. */
export function adReviewVerdict(ad: AdRecord): { status: 'approved' | 'rejected'; reason: string | null } {
  if (!ad.target_url.startsWith('https://')) return { status: 'rejected', reason: 'insecure_target_url' };
  return { status: 'approved', reason: null };
}

/** Settles review `reviewSeq` of an ad; a stale or repeated job changes nothing. */
export async function settleAdReview(deps: { store: Store; clock: Clock }, adId: string, reviewSeq: number): Promise<AdRecord | undefined> {
  const row = await deps.store.get(sql('ad-get-any'), { id: adId });
  if (!row) return undefined;
  const ad = AdRecord.parse(row);
  if (ad.review_status !== 'in_review' || ad.review_seq !== reviewSeq) return undefined;
  const verdict = adReviewVerdict(ad);
  return deps.store.transaction(async (tx) => {
    const [settled] = await tx.write(sql('ad-decide-review'), {
      id: adId,
      review_seq: reviewSeq,
      review_status: verdict.status,
      review_reason: verdict.reason,
      now_ms: deps.clock.nowMs(),
    });
    if (settled === undefined) return undefined;
    await recordWebhookEvent(tx, deps.clock, { accountId: ad.ad_account_id, type: 'ad.review.updated', resourceId: adId });
    return AdRecord.parse(settled);
  });
}

export async function pendingAdReviews(store: Store): Promise<{ id: string; review_seq: number; review_requested_at_ms: number | null }[]> {
  return (await store.all(sql('ads-in-review'))).map((r) =>
    z.object({ id: z.string(), review_seq: z.number().int(), review_requested_at_ms: z.number().nullable() }).parse(r),
  );
}
