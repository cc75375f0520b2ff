import { z } from 'zod';
import { LIFECYCLE_STATUSES, type LifecycleStatus } from '../lifecycle.js';
import { label } from '../text.js';

/** Field shapes of campaigns (spec: Campaign, Create fields, Update rules). */
export const CAMPAIGN_TIME_MIN = 946_684_800;
export const CAMPAIGN_TIME_MAX = 4_102_444_800;
export const BIDDING_TYPES = ['impressions', 'clicks', 'conversions'] as const;
export type BiddingType = (typeof BIDDING_TYPES)[number];
/** Platforms a campaign can target; `web` is a historical reporting value only. */
export const TARGETABLE_PLATFORMS = ['android_app', 'android_web', 'desktop_web', 'ios_app', 'ios_web'] as const;
export const CAMPAIGN_STATUSES = LIFECYCLE_STATUSES;
export type CampaignStatus = LifecycleStatus;

const unixTime = z.number().int().min(CAMPAIGN_TIME_MIN).max(CAMPAIGN_TIME_MAX);
const id = z.string().min(1).max(128);
const idList = (max: number) => z.array(id).max(max);

export const BudgetInput = z.object({ lifetime_spend_limit_micros: z.number().int().min(1_000_000).max(1_000_000_000_000_000) }).strict();

const PlatformsInput = z
  .object({ included: z.array(z.enum(TARGETABLE_PLATFORMS)).min(1).max(TARGETABLE_PLATFORMS.length) })
  .strict();

/** Targeting as sent: each part omitted (keep), null (clear) or a value (replace). */
export const TargetingInput = z
  .object({
    locations: z
      .object({ include: z.array(z.object({ id: z.string().min(1).max(32) }).passthrough()).min(1).max(1000) })
      .strict()
      .nullish(),
    platforms: PlatformsInput.nullish(),
    custom_audiences: z.object({ ids: idList(100) }).strict().nullish(),
    excluded_custom_audiences: z.object({ ids: idList(100) }).strict().nullish(),
  })
  .strict();
export type TargetingInput = z.infer<typeof TargetingInput>;

export const CreateCampaignInput = z
  .object({
    name: label(3, 1000),
    description: z.string().max(10_000).nullish(),
    start_time: unixTime.nullish(),
    end_time: unixTime.nullish(),
    status: z.enum(['active', 'paused']),
    budget: BudgetInput,
    mode: z.literal('product_feed').nullish(),
    product_feed_id: id.nullish(),
    bidding_type: z.enum(BIDDING_TYPES).default('impressions'),
    conversion_event_setting_ids: idList(10).default([]),
    targeting: TargetingInput.nullish(),
  })
  .strict();
export type CreateCampaignInput = z.infer<typeof CreateCampaignInput>;

export const UpdateCampaignInput = z
  .object({
    name: label(3, 1000).optional(),
    description: z.string().max(10_000).nullable().optional(),
    start_time: unixTime.nullable().optional(),
    end_time: unixTime.nullable().optional(),
    status: z.enum(CAMPAIGN_STATUSES).optional(),
    budget: BudgetInput.optional(),
    bidding_type: z.enum(BIDDING_TYPES).optional(),
    conversion_event_setting_ids: idList(10).optional(),
    mode: z.literal('product_feed').nullable().optional(),
    product_feed_id: id.nullable().optional(),
    targeting: TargetingInput.nullable().optional(),
  })
  .strict();
export type UpdateCampaignInput = z.infer<typeof UpdateCampaignInput>;

/** Targeting as stored: location ids only; expanded for responses. */
export const StoredTargeting = z
  .object({
    locations: z.object({ include: z.array(z.object({ id: z.string() })) }).optional(),
    platforms: z.object({ included: z.array(z.string()) }).optional(),
    custom_audiences: z.object({ ids: z.array(z.string()) }).optional(),
    excluded_custom_audiences: z.object({ ids: z.array(z.string()) }).optional(),
  })
  .strict();
export type StoredTargeting = z.infer<typeof StoredTargeting>;
