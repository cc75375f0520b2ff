import { z } from 'zod';
import { calendarUnits, type Interval } from '../insights/calendar.js';
import { QUARTER_HOUR_S } from '../insights/buckets.js';
import { sqlList, type Queryable } from '../store/store.js';

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

export async function refreshCalendarRollups(tx: Queryable, touched: string, seq: number): Promise<void> {
  await tx.run(
    `INSERT INTO rollup_calendars
     SELECT DISTINCT t.account, a.timezone FROM ${touched} t JOIN ad_accounts a ON a.id = t.account
     WHERE t.account NOT IN (SELECT ad_account_id FROM rollup_calendars)`,
  );
  // Accounts whose calendar rollups lack earlier loads' rows: just given a calendar and holding older rollup rows.
  const calendars = (
    await tx.all(
      `SELECT c.ad_account_id AS account, c.timezone,
         NOT EXISTS (SELECT 1 FROM rollup_1d d WHERE d.ad_account_id = c.ad_account_id AND d.load_seq < $seq)
           AND EXISTS (SELECT 1 FROM rollup_15m r WHERE r.ad_account_id = c.ad_account_id AND r.load_seq < $seq) AS fresh
       FROM rollup_calendars c WHERE c.ad_account_id IN (SELECT DISTINCT account FROM ${touched})`,
      { seq },
    )
  ).map((r) => CalendarRow.parse(r));
  const map = `${touched}_cal`;
  await tx.run(`CREATE TEMP TABLE ${map} (account VARCHAR, q BIGINT, day_q BIGINT, month_q BIGINT, backfill BOOLEAN)`);
  try {
    for (const c of calendars) {
      const source = c.fresh
        ? `SELECT DISTINCT bucket AS q FROM rollup_15m WHERE ad_account_id = $account AND load_seq <= $seq`
        : `SELECT bucket AS q FROM ${touched} WHERE account = $account`;
      const quarters = (await tx.all(`${source} ORDER BY q`, c.fresh ? { account: c.account, seq } : { account: c.account })).map((r) => Number(r['q']));
      if (quarters.length === 0) continue;
      const first = quarters[0] as number;
      const last = quarters[quarters.length - 1] as number;
      const days = calendarUnits(first * QUARTER_HOUR_S, (last + 1) * QUARTER_HOUR_S, c.timezone, 'day');
      const months = calendarUnits(first * QUARTER_HOUR_S, (last + 1) * QUARTER_HOUR_S, c.timezone, 'month');
      const dayQ = unitStarts(quarters, days);
      const monthQ = unitStarts(quarters, months);
      await tx.run(
        `INSERT INTO ${map} SELECT $account, unnest($q), unnest($d), unnest($m), $backfill`,
        { account: c.account, q: sqlList(quarters), d: sqlList(dayQ), m: sqlList(monthQ), backfill: c.fresh },
      );
    }
    // This load's rows; and, for accounts just given a calendar, every earlier load's (kept apart so the scan filters on load_seq).
    const rows = (table: string, unitCol: 'day_q' | 'month_q', source: string, backfill: boolean) =>
      `INSERT INTO ${table}
       SELECT r.ad_account_id, m.${unitCol}, r.campaign_id, r.ad_group_id, r.ad_id, r.segment, r.segment_value, r.feed_value, r.item_value,
         sum(r.impressions)::BIGINT, sum(r.clicks)::BIGINT, sum(r.spend_micros)::BIGINT, r.load_seq
       FROM ${source} r JOIN (SELECT DISTINCT account, ${unitCol === 'month_q' ? 'day_q' : 'q'} AS q, ${unitCol} FROM ${map} WHERE backfill = ${backfill}) m
         ON m.account = r.ad_account_id AND m.q = r.bucket
       WHERE ${backfill ? 'r.load_seq <= $seq' : 'r.load_seq = $seq'}
       GROUP BY ALL
       -- Rows of one segment and nearby units stay together, so scans skip row groups by their min/max.
       ORDER BY r.segment, m.${unitCol}`;
    for (const backfill of calendars.some((c) => c.fresh) ? [false, true] : [false]) {
      await tx.run(rows('rollup_1d', 'day_q', 'rollup_15m', backfill), { seq });
      await tx.run(rows('rollup_1mo', 'month_q', 'rollup_1d', backfill), { seq });
    }
  } finally {
    await tx.run(`DROP TABLE IF EXISTS ${map}`);
  }
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
