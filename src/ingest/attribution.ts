import type { Queryable } from '../store/store.js';
import { typeSql } from './event-contract.js';

/**
 * Last-touch, click-first attribution (EVENTS.md), kept current per load:
 * a late click or impression corrects earlier conversions, and the result
 * does not depend on the order events arrived in.
 *
 * A load can change the attribution of two kinds of conversion only: its own
 * new ones, and stored ones that one of its new touches could now be the
 * attributed touch of. A touch can only be attributed to a conversion at or
 * after it and at most 30 days (clicks) or 1 day (impressions) later, so a
 * stored conversion outside every such span of every new touch keeps its
 * attribution, and is not read again. The affected ones are recomputed from
 * the stored events and the load's new ones; their current rows end with this load (kept for snapshot
 * reads until compaction) and their new rows start with it.
 *
 * The latest click at or before a conversion is found once (an ASOF join);
 * it is the attributed click for every click window it falls in, since an
 * older click cannot be inside a window the latest one is outside of. Ties
 * on time go to the larger event id: the touches a window can reach are read
 * once, with their fields, and reduced to one per user and time first.
 */
const DAY_US = 86_400_000_000;
/** The longest click window and the view window, in days (EVENTS.md). */
const CLICK_DAYS = 30;
const VIEW_DAYS = 1;
const CONVERSION = typeSql('conversion');
/** A touch's columns, in the events table and in a load's scratch table of new touches alike. */
const TOUCH_COLUMNS = 'ad_account_id, user_id, type, ts_us, event_id, ad_id, country, device, platform, product_feed_id, product_item_id';

/** The scratch tables of one load's attribution (`tag` names them). */
export const attributionTables = (tag: string) =>
  [`affected_convs_${tag}`, `new_touches_${tag}`, `click_days_${tag}`, `view_days_${tag}`, `attributed_${tag}`, `converters_${tag}`, `touch_times_${tag}`, `click_touches_${tag}`, `view_touches_${tag}`] as const;

/**
 * Lists the conversions a load's new events (`added`, as the loader's
 * checked rows) can change the attribution of, and computes their new rows
 * from the stored events and the new ones together: that is the data as the
 * load's transaction will leave it. It only reads, so the loader runs it
 * before its transaction, holding the writer (Store.writerSession); inside
 * the transaction, whose uncommitted rows hold memory of their own, the
 * touch aggregate ran out of a 1GB memory limit.
 */
export async function stageAttribution(q: Queryable, added: string, tag: string): Promise<void> {
  const [affected, touches, clickDays, viewDays, attributed, converters, times, clickTouches, viewTouches] = attributionTables(tag);
  // A touch only matters to conversions of its own user, and conversions are rare: only the new touches of
  // users with a conversion that one of them could reach (a new one, or a stored one from the first new
  // touch to 30 days after the last) are kept. That is a small share of a load's touches, so the scratch
  // table below stays small instead of copying every impression (4.3 of 62 s for 2M events, bench ingest).
  const span = await q.get(`SELECT min(ts_us) AS lo, max(ts_us) AS hi FROM ${added} WHERE type <> ${CONVERSION} AND user_id IS NOT NULL`);
  await q.run(
    `CREATE TEMP TABLE ${converters} AS
     SELECT account AS ad_account_id, user_id FROM ${added} WHERE type = ${CONVERSION}
     UNION
     SELECT ad_account_id, user_id FROM events WHERE type = ${CONVERSION} AND ts_us BETWEEN $lo AND $hi`,
    { lo: Number(span?.['lo'] ?? 0), hi: Number(span?.['hi'] ?? 0) + CLICK_DAYS * DAY_US },
  );
  // The new touches that could be attributed to some conversion, read from the load's rows once (the
  // attribution below reads them several times), under the events table's column names.
  await q.run(
    `CREATE TEMP TABLE ${touches} AS
     SELECT t.account AS ad_account_id, t.user_id, t.type, t.ts_us, t.event_id, t.ad_id, t.country, t.device, t.platform, t.product_feed_id, t.product_item_id
     FROM ${added} t SEMI JOIN ${converters} u ON u.ad_account_id = t.account AND u.user_id = t.user_id
     WHERE t.type <> ${CONVERSION}`,
  );
  // The conversions to recompute (with what their rows need): this load's own, and stored ones that a
  // new touch of the same user is within reach of. The latest new touch at or before a conversion is the
  // nearest, so checking it alone (an ASOF join per kind) tells whether any is.
  await q.run(
    `CREATE TEMP TABLE ${affected} AS
     SELECT account AS ad_account_id, user_id, event_id, ts_us, event_name, amount AS value, currency FROM ${added} WHERE type = ${CONVERSION}
     UNION
     SELECT c.ad_account_id, c.user_id, c.event_id, c.ts_us, c.event_name, c.value, c.currency
     FROM events c
     ASOF LEFT JOIN (SELECT ad_account_id, user_id, ts_us FROM ${touches} WHERE type = ${typeSql('click')}) k ON k.ad_account_id = c.ad_account_id AND k.user_id = c.user_id AND k.ts_us <= c.ts_us
     ASOF LEFT JOIN (SELECT ad_account_id, user_id, ts_us FROM ${touches} WHERE type = ${typeSql('impression')}) v ON v.ad_account_id = c.ad_account_id AND v.user_id = c.user_id AND v.ts_us <= c.ts_us
     WHERE c.type = ${CONVERSION}
       AND c.ts_us BETWEEN (SELECT min(ts_us) FROM ${touches}) AND (SELECT max(ts_us) + ${CLICK_DAYS * DAY_US} FROM ${touches})
       AND (c.ts_us - k.ts_us <= ${CLICK_DAYS * DAY_US} OR c.ts_us - v.ts_us <= ${VIEW_DAYS * DAY_US})`,
  );
  // Only touches on a conversion's UTC day or the days before it that a window can reach are read: the
  // latest touch at or before a conversion, if it is in a window at all, is among them, and is then the
  // latest of them too. The days are tables of their own, so the planner knows they are the small side.
  for (const [table, days] of [[clickDays, CLICK_DAYS], [viewDays, VIEW_DAYS]] as const) {
    await q.run(
      `CREATE TEMP TABLE ${table} AS
       SELECT DISTINCT c.ad_account_id, c.user_id, c.day - k.k AS day
       FROM (SELECT DISTINCT ad_account_id, user_id, ts_us // ${DAY_US} AS day FROM ${affected}) c, range(${days + 1}) k(k)`,
    );
  }
  // Touches as stored, with the load's new ones.
  const allEvents = `(SELECT ${TOUCH_COLUMNS} FROM events UNION ALL SELECT ${TOUCH_COLUMNS} FROM ${touches})`;
  // Time bounds as constants, not subqueries: a scalar subquery in the filter hid the scan's size from the
  // planner, which then built the join's hash table on millions of touches instead of on the days.
  const bounds = async (days: string) => {
    const r = await q.get(`SELECT coalesce(min(day), 0) AS lo, coalesce(max(day) + 1, 0) AS hi FROM ${days}`);
    return { lo: Number(r?.['lo'] ?? 0) * DAY_US, hi: Number(r?.['hi'] ?? 0) * DAY_US };
  };
  // Each kind's touches on those days, with their fields, one row per user and time: on a tie, the touch with
  // the larger event id, which carries its own fields out of the aggregate (arg_max). Reading the fields here,
  // in the one scan that finds the touches, spares a second scan of the stored events for the touches picked.
  for (const [table, type, days] of [[clickTouches, 'click', clickDays], [viewTouches, 'impression', viewDays]] as const) {
    const range = await bounds(days);
    await q.run(
      `CREATE TEMP TABLE ${table} AS
       SELECT e.ad_account_id, e.user_id, e.ts_us, max(e.event_id) AS touch_id,
         arg_max({ad_id: e.ad_id, country: e.country, device: e.device, platform: e.platform, product_feed_id: e.product_feed_id, product_item_id: e.product_item_id}, e.event_id) AS t
       -- An inner join (the days are distinct), so the hash table is built on the days: as a semi join over the union
       -- the planner built it on the touches instead (5 s for 22M impressions).
       FROM ${allEvents} e JOIN ${days} d ON e.ad_account_id = d.ad_account_id AND e.user_id = d.user_id AND e.ts_us // ${DAY_US} = d.day
       WHERE e.type = ${typeSql(type)} AND e.ts_us BETWEEN ${range.lo} AND ${range.hi}
       GROUP BY e.ad_account_id, e.user_id, e.ts_us`,
    );
  }
  // The latest touch of each kind at or before each conversion (an ASOF join), with its fields.
  await q.run(
    `CREATE TEMP TABLE ${times} AS
     SELECT c.ad_account_id, c.user_id, c.event_id, c.ts_us, c.event_name, c.value, c.currency,
       k.ts_us AS click_ts, k.touch_id AS click_id, k.t AS click, v.ts_us AS view_ts, v.touch_id AS view_id, v.t AS view
     FROM ${affected} c
     ASOF LEFT JOIN ${clickTouches} k ON k.ad_account_id = c.ad_account_id AND k.user_id = c.user_id AND k.ts_us <= c.ts_us
     ASOF LEFT JOIN ${viewTouches} v ON v.ad_account_id = c.ad_account_id AND v.user_id = c.user_id AND v.ts_us <= c.ts_us`,
  );
  await q.run(
    `CREATE TEMP TABLE ${attributed} AS
     WITH chosen AS (
       SELECT l.*, w.click_window, w.view_window,
         CASE WHEN l.click_ts >= l.ts_us - w.click_window * ${DAY_US} THEN 'click'
              WHEN w.view_window = 1 AND l.view_ts >= l.ts_us - ${VIEW_DAYS * DAY_US} THEN 'view' END AS kind
       FROM ${times} l, (SELECT * FROM (VALUES (7), (14), (30)) c(click_window), (VALUES (0), (1)) v(view_window)) w
     ), picked AS (
       SELECT ch.*, CASE ch.kind WHEN 'click' THEN ch.click_id ELSE ch.view_id END AS touch_id,
         CASE ch.kind WHEN 'click' THEN ch.click_ts ELSE ch.view_ts END AS touch_ts,
         CASE ch.kind WHEN 'click' THEN ch.click ELSE ch.view END AS touch
       FROM chosen ch WHERE ch.kind IS NOT NULL
     )
     SELECT p.ad_account_id, p.user_id, p.event_id, p.click_window, p.view_window, p.kind, p.touch_id,
       p.touch.ad_id, ad.ad_group_id, ad.campaign_id, p.touch.country, p.touch.device, p.touch.platform,
       p.touch.product_feed_id, p.touch.product_item_id, p.touch_ts, p.ts_us, p.event_name, p.value, p.currency
     -- The touch's ad group and campaign follow from its ad (an ad never changes either), so events do not store them.
     FROM picked p JOIN ads ad ON ad.id = p.touch.ad_id`,
  );
}

/** Inside the load's transaction (`seq`: the load): ends the current rows of the conversions `stageAttribution` listed, and adds their new ones. */
export async function refreshAttribution(tx: Queryable, tag: string, seq: number): Promise<void> {
  const [affected, , , , attributed] = attributionTables(tag);
  if (Number((await tx.get(`SELECT count(*) AS n FROM ${affected}`))?.['n']) === 0) return;
  await tx.run(
    `UPDATE attributions a SET valid_to = $seq FROM ${affected} f
     WHERE a.ad_account_id = f.ad_account_id AND a.conversion_event_id = f.event_id AND a.valid_to IS NULL`,
    { seq },
  );
  await tx.run(`INSERT INTO attributions SELECT *, $seq, NULL FROM ${attributed}`, { seq });
}
