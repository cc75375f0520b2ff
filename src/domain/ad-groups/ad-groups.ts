import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors/api-error.js';
import { parseOrThrow } from '../../errors/zod-issues.js';
import { newId } from '../../ids.js';
import { listPage, toListEnvelope, type ListEnvelope, type ListParams } from '../../store/list-page.js';
import { sql } from '../../store/sql-loader.js';
import type { Row, Store } from '../../store/store.js';
import { getCampaignRecord } from '../campaigns/campaigns.js';
import type { BiddingType } from '../campaigns/campaign-schemas.js';
import { guardArchived, LIFECYCLE_STATUSES, type LifecycleStatus } from '../lifecycle.js';
import { label } from '../text.js';

/** Ad groups (COMPAT.md, Ad groups). */
export const AD_GROUP_PREFIX = 'adgrp_';
const BILLING_EVENTS = ['impression', 'click'] as const;
type BillingEvent = (typeof BILLING_EVENTS)[number];

/** Impressions campaigns bill per impression; clicks and conversions campaigns per click. */
export const billingEventFor = (bidding: BiddingType): BillingEvent => (bidding === 'impressions' ? 'impression' : 'click');

const contextHints = z.array(label(1, 200)).max(50);
const maxBid = z.number().int().min(1).max(100_000_000);

export const CreateAdGroupInput = z
  .object({
    campaign_id: z.string().min(1).max(128),
    name: label(3, 1000),
    description: z.string().max(10_000).nullish(),
    context_hints: contextHints.default([]),
    status: z.enum(['active', 'paused']).default('active'),
    bidding_config: z.object({ billing_event_type: z.enum(BILLING_EVENTS).optional(), max_bid_micros: maxBid }).strict(),
  })
  .strict();

export const UpdateAdGroupInput = z
  .object({
    name: label(3, 1000).optional(),
    description: z.string().max(10_000).nullable().optional(),
    context_hints: contextHints.optional(),
    status: z.enum(LIFECYCLE_STATUSES).optional(),
    campaign_id: z.string().optional(),
    bidding_config: z.object({ billing_event_type: z.enum(BILLING_EVENTS).optional(), max_bid_micros: maxBid }).strict().optional(),
  })
  .strict();

const AdGroupRecord = z.object({
  id: z.string(),
  ad_account_id: z.string(),
  campaign_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  context_hints: z.string().transform((s) => z.array(z.string()).parse(JSON.parse(s))),
  status: z.enum(LIFECYCLE_STATUSES),
  billing_event_type: z.enum(BILLING_EVENTS),
  max_bid_micros: z.number(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
export type AdGroupRecord = z.infer<typeof AdGroupRecord>;

export interface AdGroup {
  id: string;
  object: 'ad_group';
  created_at: number;
  updated_at: number;
  campaign_id: string;
  name: string;
  description: string | null;
  context_hints: string[];
  status: LifecycleStatus;
  bidding_config: { billing_event_type: BillingEvent; max_bid_micros: number };
}

const toWire = (r: AdGroupRecord): AdGroup => ({
  id: r.id,
  object: 'ad_group',
  created_at: Math.floor(r.created_at_ms / 1000),
  updated_at: Math.floor(r.updated_at_ms / 1000),
  campaign_id: r.campaign_id,
  name: r.name,
  description: r.description,
  context_hints: r.context_hints,
  status: r.status,
  bidding_config: { billing_event_type: r.billing_event_type, max_bid_micros: r.max_bid_micros },
});

const parse = (row: Row | undefined, id: string): AdGroupRecord => {
  if (!row) throw ApiError.notFound('ad group', id);
  return AdGroupRecord.parse(row);
};

interface Deps {
  store: Store;
  clock: Clock;
}

export async function createAdGroup(deps: Deps, accountId: string, raw: unknown): Promise<AdGroup> {
  const input = parseOrThrow(CreateAdGroupInput, raw ?? {});
  const campaign = await ApiError.naming('campaign_id', getCampaignRecord(deps, accountId, input.campaign_id));
  if (campaign.status === 'archived') throw new ApiError('resource_archived', `Campaign '${campaign.id}' is archived; it takes no new ad groups.`, { param: 'campaign_id' });
  const billing = billingEventFor(campaign.bidding_type);
  const asked = input.bidding_config.billing_event_type;
  if (asked !== undefined && asked !== billing) {
    throw new ApiError('invalid_value', `A ${campaign.bidding_type} campaign bills per ${billing}.`, { param: 'bidding_config.billing_event_type' });
  }
  const [row] = await deps.store.write(sql('ad-group-insert'), {
    id: newId(AD_GROUP_PREFIX),
    account: accountId,
    campaign_id: campaign.id,
    name: input.name,
    description: input.description ?? null,
    context_hints: JSON.stringify(input.context_hints),
    status: input.status,
    billing_event_type: billing,
    max_bid_micros: input.bidding_config.max_bid_micros,
    now_ms: deps.clock.nowMs(),
  });
  return toWire(parse(row, 'new'));
}

export async function getAdGroupRecord(deps: Pick<Deps, 'store'>, accountId: string, id: string): Promise<AdGroupRecord> {
  return parse(await deps.store.get(sql('ad-group-get'), { id, account: accountId }), id);
}

export async function getAdGroup(deps: Pick<Deps, 'store'>, accountId: string, id: string): Promise<AdGroup> {
  return toWire(await getAdGroupRecord(deps, accountId, id));
}

export async function listAdGroups(
  deps: Pick<Deps, 'store'>,
  accountId: string,
  params: ListParams & { campaign_id?: string | undefined },
): Promise<ListEnvelope<AdGroup>> {
  const { rows, hasMore } = await listPage(deps.store, 'ad_groups', accountId, params, { campaign_id: params.campaign_id });
  return toListEnvelope(
    rows.map((r) => toWire(AdGroupRecord.parse(r))),
    hasMore,
  );
}

export async function updateAdGroup(deps: Deps, accountId: string, id: string, raw: unknown): Promise<AdGroup> {
  const current = await getAdGroupRecord(deps, accountId, id);
  const input = parseOrThrow(UpdateAdGroupInput, raw ?? {});
  if (guardArchived('Ad group', id, current.status, input)) return toWire(current);
  if (input.campaign_id !== undefined && input.campaign_id !== current.campaign_id) {
    throw new ApiError('immutable_parameter', 'An ad group cannot move to another campaign.', { param: 'campaign_id' });
  }
  const asked = input.bidding_config?.billing_event_type;
  if (asked !== undefined && asked !== current.billing_event_type) {
    throw new ApiError('immutable_parameter', `billing_event_type follows the campaign's bidding type (${current.billing_event_type}).`, {
      param: 'bidding_config.billing_event_type',
    });
  }
  const [row] = await deps.store.write(sql('ad-group-update'), {
    id,
    account: accountId,
    name: input.name ?? current.name,
    description: input.description === undefined ? current.description : input.description,
    context_hints: JSON.stringify(input.context_hints ?? current.context_hints),
    status: input.status ?? current.status,
    max_bid_micros: input.bidding_config?.max_bid_micros ?? current.max_bid_micros,
    now_ms: deps.clock.nowMs(),
  });
  return toWire(parse(row, id));
}

export async function setAdGroupStatus(deps: Deps, accountId: string, id: string, status: LifecycleStatus): Promise<AdGroup> {
  return updateAdGroup(deps, accountId, id, { status });
}
