import type { Queryable } from '../store/store.js';

/**
 * The data watermark: the sequence number of the last committed event load.
 * Rollup rows carry the load that added them and attributions the loads
 * between which they held, so a query at watermark W reads exactly the data
 * of loads up to W, whatever commits while a client pages.
 */
export async function currentWatermark(db: Queryable): Promise<number> {
  const row = await db.get('SELECT coalesce(max(seq), 0) AS w FROM data_loads');
  return Number(row?.['w'] ?? 0);
}

/**
 * What an insights read needs to know of the data, in one round trip: the
 * watermark, the compaction horizon (cursors made before it read data that
 * compaction has merged), and the zone of the account's calendar rollups
 * (null before its first load).
 */
export async function dataState(db: Queryable, accountId: string): Promise<{ watermark: number; horizon: number; calendarZone: string | null }> {
  const row = await db.get(
    `SELECT (SELECT coalesce(max(seq), 0) FROM data_loads) AS w, (SELECT coalesce(max(horizon), 0) FROM data_compactions) AS h,
       (SELECT timezone FROM rollup_calendars WHERE ad_account_id = $account) AS zone`,
    { account: accountId },
  );
  const zone = row?.['zone'];
  return { watermark: Number(row?.['w'] ?? 0), horizon: Number(row?.['h'] ?? 0), calendarZone: zone === null || zone === undefined ? null : String(zone) };
}
