import { DateTime } from 'luxon';
import { z } from 'zod';
import { EVENT_FIELDS, formatOf, type EventFileFormat } from '../ingest/event-contract.js';
import type { Queryable } from '../store/store.js';
import type { GeneratorAd } from './entities.js';

/**
 * Deterministic, realistic event files written by DuckDB itself (so tens of
 * millions of rows take seconds, not minutes). Every value is a function of
 * (seed, row number) through DuckDB's `hash`, never of a random generator, so
 * the same arguments give the same file.
 *
 * Shape of the traffic:
 * - rows are spread evenly over the local days, in file order, with a
 *   diurnal curve peaking at local noon (4x the night rate);
 * - ads, users, countries and product items are skewed (a few get most);
 * - about 3% clicks and 0.4% conversions, the rest impressions; spend sits on
 *   the event the ad's campaign bills (impressions or clicks);
 * - about 1% of rows are late (timestamps up to two days before their
 *   neighbours), 0.5% repeat an earlier row exactly (duplicates), and 0.1%
 *   are bad in one of six ways (see BAD_KINDS).
 */
export interface GenerateSpec {
  accountId: string;
  currency: string;
  timezone: string;
  ads: readonly GeneratorAd[];
  /** Rows in the file, duplicates and bad rows included. */
  events: number;
  days: number;
  seed: number;
  /** Local date (YYYY-MM-DD) the window ends before (exclusive). */
  endDate: string;
  out: string;
}

export interface GenerateResult {
  out: string;
  format: EventFileFormat;
  rows: number;
  from: string;
  to: string;
  ads: number;
}

/** Rates of the row classes and event kinds. */
const RATE = { bad: 0.001, duplicate: 0.005, late: 0.01, conversion: 0.004, click: 0.03 } as const;
/** Bad rows, one kind each; the last is a broken line in text formats and a bad device in Parquet. */
export const BAD_KINDS = ['unknown_ad', 'click_without_user', 'lower_case_country', 'future_timestamp', 'currency_mismatch', 'broken_line'] as const;
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'IN', 'JP', 'BR', 'CA', 'AU', 'NP', 'ES', 'MX'];
const CONVERSION_NAMES: [string, number][] = [
  ['order_created', 0.35],
  ['checkout_started', 0.5],
  ['items_added', 0.7],
  ['page_viewed', 0.85],
  ['lead_created', 0.95],
  ['newsletter_signup', 1],
];

const quote = (s: string): string => `'${s.replaceAll("'", "''")}'`;
const listOf = (values: readonly string[]): string => `[${values.map(quote).join(', ')}]`;

/** Local midnights (as Unix microseconds) of the window's days and of the day after: DST days are 23 or 25 hours. */
export function dayStartsUs(timezone: string, endDate: string, days: number): number[] {
  const end = DateTime.fromISO(endDate, { zone: timezone }).startOf('day');
  if (!end.isValid) throw new Error(`invalid end date ${endDate}`);
  return Array.from({ length: days + 1 }, (_, d) => end.minus({ days: days - d }).toMillis() * 1000);
}

/** The SELECT producing one row per line (`k` orders them), typed for Parquet or as text lines for NDJSON/CSV. */
export function generatorSql(spec: GenerateSpec, format: EventFileFormat): string {
  const n = spec.events;
  // Uniform [0, 1) from the seed, a row number column and a salt.
  // (hash of several values combines their hashes too simply: uniforms with different salts came out correlated.)
  const salts = new Map<string, number>();
  const u = (of: string, salt: string) => {
    const s = salts.get(salt) ?? salts.set(salt, salts.size).size - 1;
    return `((hash(xor(hash((${of}) * 64 + ${s}), ${spec.seed}::UBIGINT)) >> 11)::DOUBLE / 9007199254740992.0)`;
  };
  const starts = `([${dayStartsUs(spec.timezone, spec.endDate, spec.days).join(", ")}]::BIGINT[])`;
  const users = Math.max(100, Math.floor(n / 30));
  const futureMs = Math.floor(Date.parse(`${spec.endDate}T00:00:00Z`) + 400 * 86_400_000);
  const otherCurrency = spec.currency === 'EUR' ? 'JPY' : 'EUR';
  const pick = (uExpr: string, values: readonly string[], skew: number) =>
    `${listOf(values)}[1 + floor(${values.length} * pow(${uExpr}, ${skew}))::INTEGER]`;
  const conversionName = `CASE ${CONVERSION_NAMES.map(([name, upTo]) => `WHEN ${u('src', 'name')} < ${upTo} THEN '${name}'`).join(' ')} END`;

  const rows = `
    SELECT i AS k, i,
      CASE WHEN ${u('i', 'class')} < ${RATE.bad} THEN 'bad' WHEN ${u('i', 'class')} < ${RATE.bad + RATE.duplicate} THEN 'dup' ELSE 'ok' END AS class,
      ${listOf(BAD_KINDS)}[1 + floor(${BAD_KINDS.length} * ${u('i', 'bad')})::INTEGER] AS bad_kind
    -- CSV: row -1 is the header line.
    FROM range(${format === 'csv' ? -1 : 0}, ${n}) t(i)`;
  const sourced = `
    SELECT k, class, bad_kind,
      CASE WHEN class = 'dup' THEN greatest(i - 1 - floor(${u('i', 'dup')} * 5000)::BIGINT, 0) ELSE i END AS src
    FROM (${rows})`;
  const content = `
    SELECT k, class, bad_kind, src,
      CASE WHEN ${u('src', 'kind')} < ${RATE.conversion} THEN 'conversion' WHEN ${u('src', 'kind')} < ${RATE.conversion + RATE.click} THEN 'click' ELSE 'impression' END AS type,
      least(floor(src * ${spec.days} / ${n})::INTEGER, ${spec.days - 1}) AS day,
      ${u('src', 'tod')} AS x,
      1 + floor(${spec.ads.length} * pow(${u('src', 'ad')}, 2.2))::INTEGER AS ad_index,
      ${u('src', 'device')} AS ud, ${u('src', 'platform')} AS up
    FROM (${sourced})`;
  const fields = `
    SELECT k, class, bad_kind, src, type,
      'e' || ${spec.seed} || '-' || src AS event_id,
      -- Diurnal curve: y = x + a sin(2 pi x) / (2 pi) has density 1 / (1 + a cos(2 pi x)), highest at local noon.
      (${starts}[day + 1] + floor((x + 0.6 * sin(2 * pi() * x) / (2 * pi())) * (${starts}[day + 2] - ${starts}[day + 1]))::BIGINT) // 1000
        - CASE WHEN ${u('src', 'late')} < ${RATE.late} THEN floor(${u('src', 'lateness')} * 172800000)::BIGINT ELSE 0 END AS ts_ms,
      CASE WHEN type <> 'conversion' THEN ${listOf(spec.ads.map((a) => a.id))}[ad_index] END AS ad_id,
      CASE WHEN type = 'conversion' OR ${u('src', 'acct')} < 0.3 THEN ${quote(spec.accountId)} END AS ad_account_id,
      CASE WHEN type <> 'impression' OR ${u('src', 'anon')} >= 0.1 THEN 'u' || floor(${users} * pow(${u('src', 'user')}, 2))::BIGINT END AS user_id,
      CASE WHEN type <> 'conversion' AND ${u('src', 'nocountry')} >= 0.05 THEN ${pick(u('src', 'country'), COUNTRIES, 2)} END AS country,
      CASE WHEN type = 'conversion' THEN NULL WHEN ud < 0.58 THEN 'mobile' WHEN ud < 0.88 THEN 'desktop' WHEN ud < 0.97 THEN 'tablet' ELSE 'other' END AS device,
      CASE WHEN type = 'conversion' THEN NULL
        WHEN ud < 0.58 THEN CASE WHEN up < 0.35 THEN 'ios_app' WHEN up < 0.6 THEN 'android_app' WHEN up < 0.8 THEN 'ios_web' ELSE 'android_web' END
        WHEN ud < 0.88 THEN CASE WHEN up < 0.03 THEN 'web' ELSE 'desktop_web' END
        WHEN ud < 0.97 THEN CASE WHEN up < 0.5 THEN 'ios_app' ELSE 'android_web' END
        ELSE 'web' END AS platform,
      CASE WHEN type <> 'conversion' AND ${u('src', 'product')} < 0.3 THEN 'pf_demo' END AS product_feed_id,
      CASE WHEN type <> 'conversion' AND ${u('src', 'product')} < 0.3 THEN 'item_' || floor(200 * pow(${u('src', 'item')}, 2))::INTEGER END AS product_item_id,
      CASE
        WHEN type = 'conversion' THEN NULL
        WHEN type = ${listOf(spec.ads.map((a) => a.billing))}[ad_index] AND type = 'impression' THEN 800 + floor(${u('src', 'cost')} * 7000)::BIGINT
        WHEN type = ${listOf(spec.ads.map((a) => a.billing))}[ad_index] THEN 150000 + floor(${u('src', 'cost')} * 1200000)::BIGINT
      END AS cost_micros,
      CASE WHEN type = 'conversion' THEN ${conversionName} END AS event_name
    FROM (${content})`;
  const valued = `
    SELECT *,
      CASE WHEN event_name = 'order_created' THEN printf('%.2f', 5 + ${u('src', 'value')} * 195) END AS value,
      CASE WHEN event_name = 'order_created' THEN ${quote(spec.currency)} END AS currency,
      ${u('src', 'isoform')} < 0.2 AS iso_time
    FROM (${fields})`;
  // Bad rows: a good row with one rule broken.
  const final = `
    SELECT k, class, bad_kind, event_id,
      CASE WHEN class = 'bad' AND bad_kind = 'click_without_user' THEN 'click' WHEN class = 'bad' AND bad_kind = 'currency_mismatch' THEN 'conversion'
           WHEN class = 'bad' AND bad_kind = 'unknown_ad' AND type = 'conversion' THEN 'impression' ELSE type END AS type,
      CASE WHEN class = 'bad' AND bad_kind = 'future_timestamp' THEN ${futureMs}::BIGINT ELSE ts_ms END AS ts_ms, iso_time,
      CASE WHEN class = 'bad' AND bad_kind = 'unknown_ad' THEN 'ad_does_not_exist'
           WHEN class = 'bad' AND bad_kind = 'click_without_user' THEN coalesce(ad_id, ${quote(spec.ads[0]?.id ?? '')})
           WHEN class = 'bad' AND bad_kind = 'currency_mismatch' THEN NULL ELSE ad_id END AS ad_id,
      CASE WHEN class = 'bad' AND bad_kind = 'unknown_ad' THEN NULL
           WHEN class = 'bad' AND bad_kind = 'currency_mismatch' THEN ${quote(spec.accountId)} ELSE ad_account_id END AS ad_account_id,
      CASE WHEN class = 'bad' AND bad_kind = 'click_without_user' THEN NULL
           WHEN class = 'bad' AND bad_kind = 'currency_mismatch' THEN coalesce(user_id, 'u0') ELSE user_id END AS user_id,
      CASE WHEN class = 'bad' AND bad_kind = 'lower_case_country' THEN 'us'
           WHEN class = 'bad' AND bad_kind = 'currency_mismatch' THEN NULL ELSE country END AS country,
      CASE WHEN class = 'bad' AND bad_kind = 'broken_line' THEN 'phone' WHEN class = 'bad' AND bad_kind = 'currency_mismatch' THEN NULL ELSE device END AS device,
      CASE WHEN class = 'bad' AND bad_kind = 'currency_mismatch' THEN NULL ELSE platform END AS platform,
      CASE WHEN class = 'bad' AND bad_kind = 'currency_mismatch' THEN NULL ELSE product_feed_id END AS product_feed_id,
      CASE WHEN class = 'bad' AND bad_kind = 'currency_mismatch' THEN NULL ELSE product_item_id END AS product_item_id,
      CASE WHEN class = 'bad' AND bad_kind IN ('click_without_user', 'currency_mismatch') THEN NULL ELSE cost_micros END AS cost_micros,
      CASE WHEN class = 'bad' AND bad_kind = 'currency_mismatch' THEN 'order_created' ELSE event_name END AS event_name,
      CASE WHEN class = 'bad' AND bad_kind = 'currency_mismatch' THEN '10.00' ELSE value END AS value,
      CASE WHEN class = 'bad' AND bad_kind = 'currency_mismatch' THEN '${otherCurrency}' ELSE currency END AS currency
    FROM (${valued})`;

  if (format === 'parquet') {
    return `SELECT event_id, type, ts_ms AS timestamp, ${EVENT_FIELDS.filter((f) => !['event_id', 'type', 'timestamp'].includes(f)).join(', ')} FROM (${final})`;
  }
  const isoTime = `strftime(make_timestamp(ts_ms * 1000), '%Y-%m-%dT%H:%M:%S.%g') || 'Z'`;
  const broken = `class = 'bad' AND bad_kind = 'broken_line'`;
  if (format === 'ndjson') {
    const str = (f: string) => `CASE WHEN ${f} IS NOT NULL THEN '"${f}":' || to_json(${f}) END`;
    const members = [
      str('event_id'),
      str('type'),
      `'"timestamp":' || CASE WHEN iso_time THEN to_json(${isoTime}) ELSE ts_ms::VARCHAR END`,
      ...['ad_id', 'ad_account_id', 'user_id', 'country', 'device', 'platform', 'product_feed_id', 'product_item_id'].map(str),
      `CASE WHEN cost_micros IS NOT NULL THEN '"cost_micros":' || cost_micros END`,
      ...['event_name', 'value', 'currency'].map(str),
    ];
    return `SELECT CASE WHEN ${broken} THEN '{"event_id": "' || event_id || '", "type": "impr' ELSE '{' || concat_ws(',', ${members.join(', ')}) || '}' END AS line
      FROM (${final})`;
  }
  const cell = (f: string) => `coalesce(${f}::VARCHAR, '')`;
  const cells = EVENT_FIELDS.map((f) => (f === 'timestamp' ? `CASE WHEN iso_time THEN ${isoTime} ELSE ts_ms::VARCHAR END` : cell(f)));
  return `SELECT CASE WHEN k = -1 THEN ${quote(EVENT_FIELDS.join(','))} WHEN ${broken} THEN event_id || ',impression,,,,,,,,,,,,,,,,extra'
      ELSE concat_ws(',', ${cells.join(', ')}) END AS line
    FROM (${final})`;
}

const Spec = z.object({ events: z.number().int().min(1), days: z.number().int().min(1), ads: z.array(z.object({ id: z.string() })).min(1) });

/** Writes the file (gzip when the name ends in .gz) and describes it. */
export async function writeEventFile(db: Queryable, spec: GenerateSpec): Promise<GenerateResult> {
  Spec.parse(spec);
  const format = formatOf(spec.out);
  if (format === undefined) throw new Error(`unsupported output ${spec.out}`);
  const compression = spec.out.toLowerCase().endsWith('.gz') ? 'gzip' : 'none';
  const options =
    format === 'parquet'
      ? `FORMAT parquet, COMPRESSION zstd`
      : // Whole lines as one column: no quoting, a delimiter that never occurs.
        `FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER chr(1), COMPRESSION ${compression}`;
  await db.run(`COPY (${generatorSql(spec, format)}) TO ${quote(spec.out)} (${options})`);
  const starts = dayStartsUs(spec.timezone, spec.endDate, spec.days);
  return {
    out: spec.out,
    format,
    rows: spec.events,
    from: new Date((starts[0] ?? 0) / 1000).toISOString(),
    to: new Date((starts[starts.length - 1] ?? 0) / 1000).toISOString(),
    ads: spec.ads.length,
  };
}
