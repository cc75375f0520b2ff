/**
 * A load stages its rollup sums keyed on the ad alone (ad_id, bucket,
 * segment, segment_value, feed_value, item_value, impressions, clicks,
 * spend_micros): the account, campaign and ad group follow from the ad, and
 * leaving their strings out of the scratch rows and out of the aggregates'
 * keys makes staging cheaper. They are joined on, from the small ads table,
 * only when the rows are written.
 */

/** `staged` rows as a rollup table's columns, in its order (load_seq excepted). */
export const withEntityIds = (staged: string): string =>
  `SELECT ad.ad_account_id, r.bucket, ad.campaign_id, ad.ad_group_id, r.ad_id, r.segment, r.segment_value, r.feed_value, r.item_value,
     r.impressions, r.clicks, r.spend_micros
   FROM ${staged} r JOIN ads ad ON ad.id = r.ad_id`;
