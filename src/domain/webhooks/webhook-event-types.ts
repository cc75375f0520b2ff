/**
 * The events adsvc emits (spec, Events: "events emitted by the ads service
 * are not shown"; these are ours, documented in the README). Every body is
 * `{object: "event", id, type, created_at, data: {id}}`, `data.id` naming
 * the resource the event is about.
 */
export const WEBHOOK_EVENT_TYPES = [
  // An account's brand review started again (POST /ad_account/brand) or was decided. data.id: the ad account.
  'ad_account.review.updated',
  // An ad went back to review (a changed creative) or its review was decided. data.id: the ad.
  'ad.review.updated',
  // Any change to a campaign, status included. data.id: the campaign.
  'campaign.updated',
  // An ingest run finished, succeeded or failed. data.id: the run.
  'ingest_run.completed',
  // Recorded spend reached a spend limit: the daily limit (once per local day; data.id: the ad account,
  // as a daily limit has no id of its own) or a date range window (once; data.id: the window).
  'spend_limit.reached',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Prefixes of the ids test events carry as sample `data.id`. */
export const SAMPLE_RESOURCE_PREFIX: Record<WebhookEventType, string> = {
  'ad_account.review.updated': 'adacct_',
  'ad.review.updated': 'ad_',
  'campaign.updated': 'cmpn_',
  'ingest_run.completed': 'irun_',
  'spend_limit.reached': 'slw_',
};
