import { z } from 'zod';
import { calendarUnits, type Interval } from '../insights/calendar.js';
import { QUARTER_HOUR_S } from '../insights/buckets.js';
import { sqlList, type Queryable } from '../store/store.js';
import { withEntityIds } from './rollup-rows.js';

/**
 * Calendar rollups (0010_calendar_rollups.sql): this load's 15-minute rollup
 * rows summed per local day of the account's calendar zone, and those per
 * local month, tagged with the load's sequence number. Quarter-hours are
 * mapped to days in JS (a few thousand distinct quarter-hours a load), with
 * the same unit function the query planner uses, so both agree on every
 * boundary. An account without a calendar yet gets one, and rows loaded
 * before it (a store from before the migration) are summed in that once.
 */
const CalendarRow = z.object({ account: z.string(), timezone: z.string(), fresh: z.boolean() });

/** The scratch tables of one load's calendar rollups (`tag` names them). */
export const calendarTables = (tag: string) => [`cal_map_${tag}`, `cal_1d_${tag}`, `cal_1mo_${tag}`] as const;

const SUMS = 'sum(r.impressions)::BIGINT AS impressions, sum(r.clicks)::BIGINT AS clicks, sum(r.spend_micros)::BIGINT AS spend_micros';
const KEYS = 'r.campaign_id, r.ad_group_id, r.ad_id, r.segment, r.segment_value, r.feed_value, r.item_value';

/**
 * Before the load's transaction (it only reads stored data): maps the
 * quarter-hours the load touched (`touched`) to local days and months, and
 * sums the load's staged 15-minute rows (`rolled`, keyed on the ad:
 * rollup-rows.ts) per day and per month into scratch tables. Returns
 * whether some account needs its earlier rows summed in (done inside the
 * transaction, from rollup_15m).
 */
export async function stageCalendarRollups(q: Queryable, touched: string, rolled: string, tag: string): Promise<boolean> {
  const [map, day, month] = calendarTables(tag);
  // An account's calendar zone: the one its rollups use already, else its own. An account without a
  // calendar is fresh when it has 15-minute rows (a store from before the migration): looked up per
  // account with a LIMIT, since a correlated EXISTS over the rollups is planned as a join of them all.
  const calendars: z.infer<typeof CalendarRow>[] = [];
  for (const r of await q.all(
    `SELECT t.account, coalesce(c.timezone, a.timezone) AS timezone, c.timezone IS NOT NULL AS has_calendar
     FROM (SELECT DISTINCT account FROM ${touched}) t JOIN ad_accounts a ON a.id = t.account
     LEFT JOIN rollup_calendars c ON c.ad_account_id = t.account`,
  )) {
    const account = z.string().parse(r['account']);
    const fresh = r['has_calendar'] !== true && (await q.get('SELECT 1 AS x FROM rollup_15m WHERE ad_account_id = $account LIMIT 1', { account })) !== undefined;
    calendars.push(CalendarRow.parse({ account, timezone: r['timezone'], fresh }));
  }
  await q.run(`CREATE TEMP TABLE ${map} (account VARCHAR, q BIGINT, day_q BIGINT, month_q BIGINT, backfill BOOLEAN)`);
  for (const c of calendars) {
    const source = c.fresh
      ? `SELECT bucket AS q FROM rollup_15m WHERE ad_account_id = $account UNION SELECT bucket FROM ${touched} WHERE account = $account`
      : `SELECT bucket AS q FROM ${touched} WHERE account = $account`;
    const quarters = (await q.all(`${source} ORDER BY q`, { account: c.account })).map((r) => Number(r['q']));
    if (quarters.length === 0) continue;
    const first = quarters[0] as number;
    const last = quarters[quarters.length - 1] as number;
    const days = calendarUnits(first * QUARTER_HOUR_S, (last + 1) * QUARTER_HOUR_S, c.timezone, 'day');
    const months = calendarUnits(first * QUARTER_HOUR_S, (last + 1) * QUARTER_HOUR_S, c.timezone, 'month');
    await q.run(`INSERT INTO ${map} SELECT $account, unnest($q), unnest($d), unnest($m), $backfill`, {
      account: c.account,
      q: sqlList(quarters),
      d: sqlList(unitStarts(quarters, days)),
      m: sqlList(unitStarts(quarters, months)),
      backfill: c.fresh,
    });
  }
  // This load's sums, keyed on the ad like `rolled`; a fresh account's come with its backfill instead.
  await q.run(
    `CREATE TEMP TABLE ${day} AS
     SELECT r.ad_id, m.day_q AS bucket, r.segment, r.segment_value, r.feed_value, r.item_value, ${SUMS}
     FROM ${rolled} r JOIN ads ad ON ad.id = r.ad_id JOIN ${map} m ON m.account = ad.ad_account_id AND m.q = r.bucket AND NOT m.backfill
     GROUP BY ALL`,
  );
  await q.run(
    `CREATE TEMP TABLE ${month} AS
     SELECT r.ad_id, m.month_q AS bucket, r.segment, r.segment_value, r.feed_value, r.item_value, ${SUMS}
     FROM ${day} r JOIN ads ad ON ad.id = r.ad_id
       JOIN (SELECT DISTINCT account, day_q, month_q FROM ${map} WHERE NOT backfill) m ON m.account = ad.ad_account_id AND m.day_q = r.bucket
     GROUP BY ALL`,
  );
  return calendars.some((c) => c.fresh);
}

/** Inside the load's transaction (`seq`): writes what `stageCalendarRollups` summed, and any backfill. */
export async function insertCalendarRollups(tx: Queryable, touched: string, tag: string, seq: number, backfill: boolean): Promise<void> {
  const [map, day, month] = calendarTables(tag);
  await tx.run(
    `INSERT INTO rollup_calendars
     SELECT DISTINCT t.account, a.timezone FROM ${touched} t JOIN ad_accounts a ON a.id = t.account
     WHERE t.account NOT IN (SELECT ad_account_id FROM rollup_calendars)`,
  );
  // Rows of one segment and nearby units stay together, so scans skip row groups by their min/max.
  await tx.run(`INSERT INTO rollup_1d SELECT *, $seq FROM (${withEntityIds(day)}) ORDER BY segment, bucket`, { seq });
  await tx.run(`INSERT INTO rollup_1mo SELECT *, $seq FROM (${withEntityIds(month)}) ORDER BY segment, bucket`, { seq });
  if (!backfill) return;
  // Accounts just given a calendar: every load's rows so far, this one's included (kept apart so the scan filters on load_seq).
  const rows = (table: string, unitCol: 'day_q' | 'month_q', source: string) =>
    `INSERT INTO ${table}
     SELECT r.ad_account_id, m.${unitCol}, ${KEYS}, ${SUMS}, r.load_seq
     FROM ${source} r JOIN (SELECT DISTINCT account, ${unitCol === 'month_q' ? 'day_q' : 'q'} AS q, ${unitCol} FROM ${map} WHERE backfill) m
       ON m.account = r.ad_account_id AND m.q = r.bucket
     WHERE r.load_seq <= $seq
     GROUP BY ALL
     ORDER BY r.segment, m.${unitCol}`;
  await tx.run(rows('rollup_1d', 'day_q', 'rollup_15m'), { seq });
  await tx.run(rows('rollup_1mo', 'month_q', 'rollup_1d'), { seq });
}

/** The first quarter-hour of the unit holding each quarter-hour (both sorted). */
function unitStarts(quarters: readonly number[], units: readonly Interval[]): number[] {
  const out: number[] = [];
  let u = 0;
  for (const q of quarters) {
    while (u < units.length - 1 && (units[u] as Interval).endS <= q * QUARTER_HOUR_S) u++;
    out.push((units[u] as Interval).startS / QUARTER_HOUR_S);
  }
  return out;
}
