import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { createAdGroup } from '../domain/ad-groups/ad-groups.js';
import { createAd, type AdReviewScheduler } from '../domain/ads/ads.js';
import { requireAccount } from '../domain/accounts/accounts.js';
import { createCampaign } from '../domain/campaigns/campaigns.js';
import { createEventSetting } from '../domain/event-settings/event-settings.js';
import { png } from '../domain/files/png.js';
import { uploadImageForm } from '../domain/files/upload-service.js';
import type { Store } from '../store/store.js';

/** An ad events can be generated for, and the event its campaign bills on (impressions campaigns bill impressions). */
export interface GeneratorAd {
  id: string;
  billing: 'impression' | 'click';
}

export interface EntityDeps {
  store: Store;
  clock: Clock;
  config: Config;
  adReviews: AdReviewScheduler;
}

const AdRow = z.object({ id: z.string(), bidding_type: z.string() });

/** The account's ads that are not archived, oldest first. */
export async function accountAds(store: Store, accountId: string): Promise<GeneratorAd[]> {
  const rows = await store.all(
    `SELECT ad.id, c.bidding_type FROM ads ad JOIN campaigns c ON c.id = ad.campaign_id
     WHERE ad.ad_account_id = $a AND ad.status <> 'archived' ORDER BY ad.created_at_ms, ad.id`,
    { a: accountId },
  );
  return rows.map((r) => {
    const row = AdRow.parse(r);
    return { id: row.id, billing: row.bidding_type === 'impressions' ? 'impression' : 'click' };
  });
}

export interface CampaignPlan {
  name: string;
  bidding_type: 'impressions' | 'clicks' | 'conversions';
  groups: readonly string[];
  ads: readonly string[];
}

/**
 * A small, plausible account structure: campaigns of both billing kinds (and,
 * where the account may bid on conversions, one with an `order_created` goal,
 * so reports have goal conversions), two ad groups each, three ads per group.
 */
export const DEFAULT_PLAN: readonly CampaignPlan[] = [
  { name: 'Brand awareness', bidding_type: 'impressions', groups: ['Prospecting', 'Lookalikes'], ads: ['A', 'B', 'C'] },
  { name: 'Spring sale', bidding_type: 'clicks', groups: ['Returning visitors', 'Cart abandoners'], ads: ['A', 'B', 'C'] },
  { name: 'Checkout conversions', bidding_type: 'conversions', groups: ['Shoppers', 'Window shoppers'], ads: ['A', 'B', 'C'] },
];

async function* oneImage(bytes: Buffer) {
  yield {
    kind: 'file' as const,
    name: 'file',
    filename: 'creative.png',
    content: (async function* () {
      yield bytes;
    })(),
  };
}

/**
 * Creates a plan's campaigns, ad groups and ads (their creatives one uploaded
 * image) through the domain rules. Conversions campaigns get an order_created
 * goal, and are left out where the account may not bid on conversions.
 */
export async function createGeneratorEntities(deps: EntityDeps, accountId: string, plan: readonly CampaignPlan[] = DEFAULT_PLAN): Promise<void> {
  const { file_id } = await uploadImageForm(deps, accountId, oneImage(png(256, 256, [40, 90, 200])));
  const campaignDeps = { store: deps.store, clock: deps.clock, audienceMinSize: deps.config.audienceMinSize };
  const account = await requireAccount(deps, accountId);
  let orders: string | undefined;
  for (const c of plan) {
    let goals: string[] = [];
    if (c.bidding_type === 'conversions') {
      if (!account.conversion_bidding_enabled) continue;
      orders ??= (await createEventSetting(deps, accountId, { name: 'Orders', event_type: 'order_created' })).id;
      goals = [orders];
    }
    const campaign = await createCampaign(campaignDeps, accountId, {
      name: c.name,
      status: 'active',
      bidding_type: c.bidding_type,
      conversion_event_setting_ids: goals,
      budget: { lifetime_spend_limit_micros: 50_000_000_000 },
    });
    for (const groupName of c.groups) {
      const group = await createAdGroup(deps, accountId, {
        campaign_id: campaign.id,
        name: `${c.name}: ${groupName}`,
        bidding_config: { max_bid_micros: c.bidding_type === 'impressions' ? 12_000 : 1_500_000 },
      });
      for (const variant of c.ads) {
        await createAd(deps, accountId, {
          ad_group_id: group.id,
          name: `${groupName} ${variant}`,
          creative: { type: 'chat_card', title: `${c.name} ${variant}`.slice(0, 50), target_url: 'https://shop.example/landing', file_id },
        });
      }
    }
  }
}
