import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors/api-error.js';
import { parseOrThrow } from '../../errors/zod-issues.js';
import { newId } from '../../ids.js';
import { listPage, toListEnvelope, type ListEnvelope, type ListParams } from '../../store/list-page.js';
import { sql } from '../../store/sql-loader.js';
import type { Row, Store } from '../../store/store.js';
import { requireAccount } from '../accounts/accounts.js';
import { assertAudiencesUnchanged, checkAudienceTargeting } from '../audiences/audience-eligibility.js';
import { getEventSettingRecord } from '../event-settings/event-settings.js';
import { productFeedExists } from '../product-feeds/product-feeds.js';
import { guardArchived } from '../lifecycle.js';
import { isStandardEvent } from '../standard-events.js';
import { recordWebhookEvent } from '../webhooks/webhook-outbox.js';
import {
  BIDDING_TYPES,
  CAMPAIGN_STATUSES,
  CreateCampaignInput,
  StoredTargeting,
  UpdateCampaignInput,
  type BiddingType,
  type CampaignStatus,
} from './campaign-schemas.js';
import { checkLocations, expandTargeting, mergeTargeting, type WireTargeting } from './targeting.js';

/** Campaigns (spec: Campaigns, States and transitions). */
export const CAMPAIGN_PREFIX = 'cmpn_';

const jsonText = <T extends z.ZodType>(schema: T) => z.string().transform((s) => schema.parse(JSON.parse(s)) as z.output<T>);

const CampaignRecord = z.object({
  id: z.string(),
  ad_account_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(CAMPAIGN_STATUSES),
  start_time: z.number().nullable(),
  end_time: z.number().nullable(),
  lifetime_spend_limit_micros: z.number(),
  bidding_type: z.enum(BIDDING_TYPES),
  conversion_event_setting_ids: jsonText(z.array(z.string())),
  mode: z.literal('product_feed').nullable(),
  product_feed_id: z.string().nullable(),
  targeting: jsonText(StoredTargeting),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
export type CampaignRecord = z.infer<typeof CampaignRecord>;

export interface Campaign {
  id: string;
  object: 'campaign';
  created_at: number;
  updated_at: number;
  name: string;
  description: string | null;
  status: CampaignStatus;
  start_time: number | null;
  end_time: number | null;
  budget: { lifetime_spend_limit_micros: number };
  bidding_type: BiddingType;
  conversion_event_setting_ids: string[];
  mode: 'product_feed' | null;
  product_feed_id: string | null;
  targeting: WireTargeting;
}

export const toWireCampaign = (r: CampaignRecord): Campaign => ({
  id: r.id,
  object: 'campaign',
  created_at: Math.floor(r.created_at_ms / 1000),
  updated_at: Math.floor(r.updated_at_ms / 1000),
  name: r.name,
  description: r.description,
  status: r.status,
  start_time: r.start_time,
  end_time: r.end_time,
  budget: { lifetime_spend_limit_micros: r.lifetime_spend_limit_micros },
  bidding_type: r.bidding_type,
  conversion_event_setting_ids: r.conversion_event_setting_ids,
  mode: r.mode,
  product_feed_id: r.product_feed_id,
  targeting: expandTargeting(r.targeting),
});

const parseCampaign = (row: Row | undefined, id: string): CampaignRecord => {
  if (!row) throw ApiError.notFound('campaign', id);
  return CampaignRecord.parse(row);
};

export interface CampaignDeps {
  store: Store;
  clock: Clock;
  audienceMinSize: number;
}

function checkTimes(start: number | null, end: number | null, nowSec: number): void {
  if (end === null) return;
  if (start !== null && end <= start) throw new ApiError('invalid_value', 'end_time must be after start_time.', { param: 'end_time' });
  if (start === null && end <= nowSec) {
    throw new ApiError('invalid_value', 'end_time is in the past; without start_time the campaign would start now.', { param: 'end_time' });
  }
}

/** Conversion bidding: enabled for the account, exactly one active standard event setting (spec, Create fields). */
async function checkBidding(deps: CampaignDeps, accountId: string, bidding: BiddingType, settingIds: string[]): Promise<void> {
  const param = 'conversion_event_setting_ids';
  if (bidding !== 'conversions') {
    if (settingIds.length > 0) throw new ApiError('invalid_value', `${param} is only for bidding_type conversions.`, { param });
    return;
  }
  const account = await requireAccount(deps, accountId);
  if (!account.conversion_bidding_enabled) {
    throw new ApiError('conversion_bidding_not_enabled', 'Conversion bidding is not enabled for this ad account.', { param: 'bidding_type' });
  }
  if (settingIds.length === 0) throw new ApiError('missing_required_parameter', `bidding_type conversions needs one ${param} entry.`, { param });
  if (settingIds.length > 1) throw new ApiError('invalid_value', `bidding_type conversions takes exactly one ${param} entry.`, { param });
  const id = settingIds[0] as string;
  const setting = await ApiError.naming(`${param}[0]`, getEventSettingRecord(deps, accountId, id));
  if (setting.archived) throw new ApiError('invalid_value', `Conversion event setting '${id}' is archived.`, { param: `${param}[0]` });
  if (setting.event_type === 'custom' || !isStandardEvent(setting.event_type)) {
    throw new ApiError('invalid_value', 'Custom event settings cannot be optimization goals; choose a standard event setting.', { param: `${param}[0]` });
  }
}

async function checkTargeting(deps: CampaignDeps, accountId: string, t: StoredTargeting) {
  checkLocations(t);
  return checkAudienceTargeting(deps.store, accountId, t.custom_audiences?.ids ?? [], t.excluded_custom_audiences?.ids ?? [], deps.audienceMinSize);
}

export async function createCampaign(deps: CampaignDeps, accountId: string, raw: unknown): Promise<Campaign> {
  const input = parseOrThrow(CreateCampaignInput, raw ?? {});
  const nowMs = deps.clock.nowMs();
  checkTimes(input.start_time ?? null, input.end_time ?? null, Math.floor(nowMs / 1000));
  const mode = input.mode ?? null;
  const feedId = input.product_feed_id ?? null;
  if (mode === 'product_feed' && feedId === null) {
    throw new ApiError('missing_required_parameter', 'mode product_feed needs product_feed_id.', { param: 'product_feed_id' });
  }
  if (mode === null && feedId !== null) throw new ApiError('invalid_value', 'product_feed_id is only for mode product_feed.', { param: 'product_feed_id' });
  if (feedId !== null && !(await productFeedExists(deps, accountId, feedId))) throw ApiError.notFound('product feed', feedId, 'product_feed_id');
  await checkBidding(deps, accountId, input.bidding_type, input.conversion_event_setting_ids);
  const targeting = mergeTargeting({}, input.targeting);
  const versions = await checkTargeting(deps, accountId, targeting);
  return deps.store.transaction(async (tx) => {
    await assertAudiencesUnchanged(tx, accountId, versions);
    const [row] = await tx.write(sql('campaign-insert'), {
      id: newId(CAMPAIGN_PREFIX),
      account: accountId,
      name: input.name,
      description: input.description ?? null,
      status: input.status,
      start_time: input.start_time ?? null,
      end_time: input.end_time ?? null,
      budget: input.budget.lifetime_spend_limit_micros,
      bidding_type: input.bidding_type,
      setting_ids: JSON.stringify(input.conversion_event_setting_ids),
      mode,
      product_feed_id: feedId,
      targeting: JSON.stringify(targeting),
      now_ms: nowMs,
    });
    return toWireCampaign(parseCampaign(row, 'new'));
  });
}

export async function getCampaignRecord(deps: Pick<CampaignDeps, 'store'>, accountId: string, id: string): Promise<CampaignRecord> {
  return parseCampaign(await deps.store.get(sql('campaign-get'), { id, account: accountId }), id);
}

export async function getCampaign(deps: Pick<CampaignDeps, 'store'>, accountId: string, id: string): Promise<Campaign> {
  return toWireCampaign(await getCampaignRecord(deps, accountId, id));
}

export async function listCampaigns(deps: Pick<CampaignDeps, 'store'>, accountId: string, params: ListParams): Promise<ListEnvelope<Campaign>> {
  const { rows, hasMore } = await listPage(deps.store, 'campaigns', accountId, params);
  return toListEnvelope(
    rows.map((r) => toWireCampaign(CampaignRecord.parse(r))),
    hasMore,
  );
}

const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** `POST /campaigns/{id}` (spec, Update rules). */
export async function updateCampaign(deps: CampaignDeps, accountId: string, id: string, raw: unknown): Promise<Campaign> {
  const current = await getCampaignRecord(deps, accountId, id);
  const input = parseOrThrow(UpdateCampaignInput, raw ?? {});
  if (guardArchived('Campaign', id, current.status, input)) return toWireCampaign(current);
  if (input.bidding_type !== undefined && input.bidding_type !== current.bidding_type) {
    throw new ApiError('immutable_parameter', 'bidding_type cannot change after creation.', { param: 'bidding_type' });
  }
  if (input.conversion_event_setting_ids !== undefined && !sameIds(input.conversion_event_setting_ids, current.conversion_event_setting_ids)) {
    throw new ApiError(
      current.bidding_type === 'conversions' ? 'immutable_parameter' : 'invalid_value',
      current.bidding_type === 'conversions'
        ? 'The conversion event of a conversion-optimized campaign cannot change.'
        : 'conversion_event_setting_ids is only for bidding_type conversions.',
      { param: 'conversion_event_setting_ids' },
    );
  }
  if (input.mode !== undefined && input.mode !== current.mode) throw new ApiError('immutable_parameter', 'mode cannot change after creation.', { param: 'mode' });
  if (input.product_feed_id !== undefined && input.product_feed_id !== current.product_feed_id) {
    throw new ApiError('immutable_parameter', 'product_feed_id cannot change after creation.', { param: 'product_feed_id' });
  }
  const start = input.start_time === undefined ? current.start_time : input.start_time;
  const end = input.end_time === undefined ? current.end_time : input.end_time;
  const nowMs = deps.clock.nowMs();
  if (input.start_time !== undefined || input.end_time !== undefined) checkTimes(start, end, Math.floor(nowMs / 1000));
  const targeting = mergeTargeting(current.targeting, input.targeting);
  // Audience eligibility is checked again on every save (spec, Update rule 7).
  const versions = await checkTargeting(deps, accountId, targeting);
  return deps.store.transaction(async (tx) => {
    await assertAudiencesUnchanged(tx, accountId, versions);
    const [row] = await tx.write(sql('campaign-update'), {
      id,
      account: accountId,
      name: input.name ?? current.name,
      description: input.description === undefined ? current.description : input.description,
      status: input.status ?? current.status,
      start_time: start,
      end_time: end,
      budget: input.budget?.lifetime_spend_limit_micros ?? current.lifetime_spend_limit_micros,
      targeting: JSON.stringify(targeting),
      now_ms: nowMs,
    });
    const updated = toWireCampaign(parseCampaign(row, id));
    // campaign.updated on any change, status included; a save that changes nothing is no event.
    if (JSON.stringify({ ...updated, updated_at: 0 }) !== JSON.stringify({ ...toWireCampaign(current), updated_at: 0 })) {
      await recordWebhookEvent(tx, deps.clock, { accountId, type: 'campaign.updated', resourceId: id });
    }
    return updated;
  });
}

/** activate / pause / archive (spec, Campaign status): archived is final. */
export async function setCampaignStatus(deps: CampaignDeps, accountId: string, id: string, status: CampaignStatus): Promise<Campaign> {
  return updateCampaign(deps, accountId, id, { status });
}
