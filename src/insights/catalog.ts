/**
 * The field catalog of GET insights (spec: Insights (GET), canonical field
 * names; COMPAT.md, Insights details): every name a request may use, its wire
 * name, what kind of field it is and where it is valid. SQL identifiers for a
 * field come from `column` here, never from the request.
 */
export const LEVELS = ['ad_account', 'campaign', 'ad_group', 'ad'] as const;
export type Level = (typeof LEVELS)[number];
export const SEGMENTS = ['product', 'country', 'device', 'platform'] as const;
export type Segment = (typeof SEGMENTS)[number];

export const DELIVERY_METRICS = ['impressions', 'clicks', 'spend', 'ctr', 'cpc', 'cpm'] as const;
export const CONVERSION_METRICS = [
  'conversions',
  'click_through_conversions',
  'view_through_conversions',
  'cpa',
  'post_click_cvr',
  'order_created_attributed_sales',
  'order_created_roas',
] as const;
export type Metric = (typeof DELIVERY_METRICS)[number] | (typeof CONVERSION_METRICS)[number];
export const METRICS: readonly Metric[] = [...DELIVERY_METRICS, ...CONVERSION_METRICS];

export const levelRank = (l: Level): number => LEVELS.indexOf(l);

export type FieldKind = 'metric' | 'id' | 'entity_meta' | 'segment_meta' | 'report_meta';

export interface FieldDef {
  /** Canonical name as the request spells it, e.g. `campaign.clicks`. */
  name: string;
  /** Key in response rows, e.g. `campaign_id`, `country_impressions`. */
  wire: string;
  kind: FieldKind;
  metric?: Metric;
  /** For ids and entity metadata: the entity the field belongs to (valid at that level and below). */
  entity?: Level;
  /** For segment fields: the segment that must be requested. */
  segment?: Segment;
  /** Output column of the compiled query that carries the value. */
  column: string;
  /** Numbers (thresholds and numeric sort) rather than text. */
  numeric: boolean;
  /** May appear in `sort`. */
  sortable: boolean;
}

const metricColumn = (m: Metric) => `m_${m}`;

const meta = (entity: Level, attr: string, column: string, numeric = false): FieldDef => ({
  name: `${entity}.${attr}`,
  wire: `${entity}_${attr.replaceAll('.', '_')}`,
  kind: 'entity_meta',
  entity,
  column,
  numeric,
  sortable: true,
});

const segMeta = (segment: Segment, name: string, wire: string, column: string, numeric = false): FieldDef => ({
  name,
  wire,
  kind: 'segment_meta',
  segment,
  column,
  numeric,
  sortable: true,
});

function buildCatalog(): FieldDef[] {
  const out: FieldDef[] = [];
  for (const m of METRICS) {
    out.push({ name: m, wire: m, kind: 'metric', metric: m, column: metricColumn(m), numeric: true, sortable: true });
    for (const l of LEVELS) out.push({ name: `${l}.${m}`, wire: m, kind: 'metric', metric: m, entity: l, column: metricColumn(m), numeric: true, sortable: true });
    for (const s of SEGMENTS) {
      // The platform segment splits delivery metrics only.
      if (s === 'platform' && !(DELIVERY_METRICS as readonly string[]).includes(m)) continue;
      out.push({ name: `${s}.${m}`, wire: `${s}_${m}`, kind: 'metric', metric: m, segment: s, column: metricColumn(m), numeric: true, sortable: true });
    }
  }
  for (const l of LEVELS) out.push({ name: `${l}.id`, wire: `${l}_id`, kind: 'id', entity: l, column: `${l}_id`, numeric: false, sortable: true });
  out.push(
    meta('ad_account', 'name', 'acct_name'),
    meta('ad_account', 'url', 'acct_url'),
    meta('ad_account', 'budget.lifetime', 'acct_budget_lifetime', true),
    meta('ad_account', 'budget.daily', 'acct_budget_daily', true),
    meta('campaign', 'name', 'cmpn_name'),
    meta('campaign', 'description', 'cmpn_description'),
    meta('campaign', 'status', 'cmpn_status'),
    meta('campaign', 'start_time', 'cmpn_start_time', true),
    meta('campaign', 'end_time', 'cmpn_end_time', true),
    meta('campaign', 'budget.lifetime', 'cmpn_budget_lifetime', true),
    meta('campaign', 'budget.daily', 'cmpn_budget_daily', true),
    meta('ad_group', 'name', 'adgrp_name'),
    meta('ad_group', 'description', 'adgrp_description'),
    meta('ad_group', 'status', 'adgrp_status'),
    meta('ad', 'title', 'ad_title'),
    meta('ad', 'copy', 'ad_copy'),
    meta('ad', 'link', 'ad_link'),
    meta('ad', 'name', 'ad_name'),
    meta('ad', 'status', 'ad_status'),
    meta('ad', 'review_status', 'ad_review_status'),
    segMeta('product', 'product.feed_id', 'product_feed_id', 'seg_feed'),
    segMeta('product', 'product.item_id', 'product_item_id', 'seg_item'),
    ...(['title', 'description', 'body', 'target_url', 'image_url', 'brand', 'seller_name', 'availability'] as const).map((a) =>
      segMeta('product', `product.${a}`, `product_${a}`, `prod_${a}`),
    ),
    segMeta('product', 'product.price', 'product_price', 'prod_price', true),
    segMeta('country', 'country.name', 'country_name', 'country_name'),
    segMeta('device', 'device.type', 'device_type', 'seg_value'),
    segMeta('platform', 'platform', 'platform', 'seg_value'),
    // The country code itself: the key of a country row.
    segMeta('country', 'country.code', 'country', 'seg_value'),
    { name: 'metadata.readable_time', wire: 'readable_time', kind: 'report_meta', column: 'readable_time', numeric: false, sortable: false },
    { name: 'metadata.timezone', wire: 'timezone', kind: 'report_meta', column: 'timezone', numeric: false, sortable: false },
  );
  return out;
}

export const CATALOG: readonly FieldDef[] = buildCatalog();
const BY_NAME = new Map(CATALOG.map((f) => [f.name, f]));

/**
 * A field by canonical or flat wire name (COMPAT.md: clients send both). A
 * wire name shared by several canonical names (`clicks` for `clicks` and
 * `campaign.clicks`) resolves to the plain one.
 */
export function lookupField(name: string): FieldDef | undefined {
  return BY_NAME.get(name) ?? CATALOG.find((f) => f.wire === name && f.entity === undefined && f.segment === undefined) ?? CATALOG.find((f) => f.wire === name);
}

/** `product.feed_item_id`: valid only in filters, as exact (feed, item) pairs. */
export const FEED_ITEM_FILTER = 'product.feed_item_id';

export const isConversionMetric = (m: Metric): boolean => (CONVERSION_METRICS as readonly string[]).includes(m);

/** The name field shown by default for a row entity. */
export const DEFAULT_NAME_FIELD: Record<Level, string> = {
  ad_account: 'ad_account.name',
  campaign: 'campaign.name',
  ad_group: 'ad_group.name',
  ad: 'ad.name',
};

/** The key fields of a segment's rows (shown by default in segmented reports). */
export const SEGMENT_KEY_FIELDS: Record<Segment, string[]> = {
  product: ['product.feed_id', 'product.item_id'],
  country: ['country.code'],
  device: ['device.type'],
  platform: ['platform'],
};
