/**
 * The event record contract (shared/EVENTS.md): field names, allowed values
 * and the reason codes of quarantined rows. The loader checks rows in SQL;
 * these lists are the one place the allowed values are written down.
 */
export const EVENT_TYPES = ['impression', 'click', 'conversion'] as const;
export const DEVICES = ['mobile', 'desktop', 'tablet', 'other'] as const;
export const PLATFORMS = ['android_app', 'android_web', 'desktop_web', 'ios_app', 'ios_web', 'web'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * An event type as a value of the store's ENUM (0013_event_columns.sql), for
 * comparing with a `type` column: against bare text, DuckDB casts every
 * row's value to text before comparing.
 */
export const typeSql = (type: EventType): string => `'${type}'::event_type`;

export const EVENT_FIELDS = [
  'event_id',
  'type',
  'timestamp',
  'ad_id',
  'ad_account_id',
  'user_id',
  'country',
  'device',
  'platform',
  'product_feed_id',
  'product_item_id',
  'cost_micros',
  'event_name',
  'value',
  'currency',
] as const;
export type EventField = (typeof EVENT_FIELDS)[number];

export const QUARANTINE_REASONS = [
  'invalid_json',
  'malformed_row',
  'missing_field',
  'invalid_value',
  'unknown_ad',
  'unknown_account',
  'account_mismatch',
  'currency_mismatch',
  'future_timestamp',
] as const;
export type QuarantineReason = (typeof QUARANTINE_REASONS)[number];

/** Earliest accepted event time: 2000-01-01T00:00:00Z. */
export const MIN_EVENT_TIME_US = 946_684_800_000_000;
/** Events may be at most this far ahead of the ingest time. */
export const MAX_FUTURE_US = 10 * 60 * 1_000_000;

export type EventFileFormat = 'ndjson' | 'csv' | 'parquet';

/** The format by extension (EVENTS.md): .ndjson/.jsonl, .csv, .parquet; text forms optionally .gz. */
export function formatOf(path: string): EventFileFormat | undefined {
  const p = path.toLowerCase().replace(/\.gz$/, '');
  if (p.endsWith('.ndjson') || p.endsWith('.jsonl')) return 'ndjson';
  if (p.endsWith('.csv')) return 'csv';
  if (p.endsWith('.parquet') && !path.toLowerCase().endsWith('.gz')) return 'parquet';
  return undefined;
}

/**
 * Lines of a file per load transaction (ADSVC_INGEST_CHUNK_LINES). A chunk's
 * scratch sums, its uncommitted rows and its refreshes are what a load holds
 * at once; each chunk also reads again the stored events its attribution
 * needs, so small chunks cost time: 10M events into a store of 50M took
 * about 1.6 times as long in 1M-line chunks as in 5M ones (bench ingest).
 */
export const INGEST_CHUNK_LINES = 5_000_000;

/**
 * Queued `POST /v1/events` runs of one account that the ingest worker loads
 * as one batch (ADSVC_INGEST_BATCH_RUNS): every load pays a fixed cost that
 * grows with the store (dedup reads every stored key hash, attribution the
 * clicks of the last 30 days, a commit), so a stream of small requests is
 * stored far faster in batches than one by one.
 */
export const INGEST_BATCH_RUNS = 20;
