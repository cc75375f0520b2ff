import type { Queryable } from '../store/store.js';
import { typeSql } from './event-contract.js';

/**
 * Last-touch, click-first attribution (EVENTS.md), kept current per load:
 * a late click or impression corrects earlier conversions, and the result
 * does not depend on the order events arrived in.
 *
 * A conversion's attribution, for every window pair, follows from two
 * touches only: the latest click and the latest impression at or before it
 * (ties on time go to the larger event id). The latest click is the
 * attributed click for every click window it falls in, since an older click
 * cannot be inside a window the latest one is outside of; failing that, the
 * latest impression is the view-through touch if it is within a day. So a
 * load changes the attribution of its own new conversions, and of stored
 * ones whose latest click or impression is now one of its new touches, and
 * of no other. Stored conversions are candidates only from the first new
 * touch to 30 days after the last, and only of users with a new touch:
 * after that, a new touch is outside every window. Each candidate's two
 * latest touches are found (an ASOF join over the touches its windows can
 * reach), and those whose conversion is new or whose touch is new are the
 * affected ones: their current rows end with this load (kept for snapshot
 * reads until compaction) and their new rows start with it.
 */
const DAY_US = 86_400_000_000;
/** The longest click window and the view window, in days (EVENTS.md). */
const CLICK_DAYS = 30;
const VIEW_DAYS = 1;
const CONVERSION = typeSql('conversion');
/** A touch's columns after its account (`ad_account_id` in the events table, `account` in a load's checked rows). */
const TOUCH_COLUMNS = 'user_id, type, ts_us, event_id, ad_id, country, device, platform, product_feed_id, product_item_id';

/** The scratch tables of one load's attribution (`tag` names them). */
export const attributionTables = (tag: string) =>
  [`affected_convs_${tag}`, `candidates_${tag}`, `click_users_${tag}`, `view_days_${tag}`, `attributed_${tag}`, `touch_times_${tag}`, `click_touches_${tag}`, `view_touches_${tag}`, `in_reach_${tag}`] as const;

/**
 * Lists the conversions a load's new events (`added`, as the loader's
 * checked rows) change the attribution of, and computes their new rows
 * from the stored events and the new ones together: that is the data as the
 * load's transaction will leave it. It only reads, so the loader runs it
 * before its transaction, holding the writer (Store.writerSession); inside
 * the transaction, whose uncommitted rows hold memory of their own, the
 * touch aggregate ran out of a 1GB memory limit. `mark` times its steps
 * (ADSVC_INGEST_TRACE).
 */
export async function stageAttribution(q: Queryable, added: string, tag: string, mark: (step: string) => void = () => undefined): Promise<void> {
  const [affected, candidates, clickUsers, viewDays, attributed, times, clickTouches, viewTouches, inReach] = attributionTables(tag);
  const span = await q.get(`SELECT min(ts_us) AS lo, max(ts_us) AS hi FROM ${added} WHERE type <> ${CONVERSION} AND user_id IS NOT NULL`);
  // The conversions whose attribution this load may change: its own, and stored ones of users with a new touch
  // that a new touch can reach. Before, a stored one was kept only if some new touch was within one of its
  // windows (an ASOF join over every new touch, 3.5 s for 10M events), after copying aside the new touches of
  // converting users (3.7 s): reading the candidates' latest touches, which the attribution needs anyway,
  // decides it instead. The stored ones in reach are set apart first, then kept by their user: as one statement
  // with the scan of the events, the planner took 2 s for this instead of 0.6 s (10M events into 50M).
  await q.run(
    `CREATE TEMP TABLE ${candidates} AS
     SELECT account AS ad_account_id, user_id, event_id, ts_us, event_name, amount AS value, currency, true AS is_new FROM ${added} WHERE type = ${CONVERSION}`,
  );
  await q.run(
    `CREATE TEMP TABLE ${inReach} AS
     SELECT ad_account_id, user_id, event_id, ts_us, event_name, value, currency FROM events WHERE type = ${CONVERSION} AND ts_us BETWEEN $lo AND $hi`,
    { lo: Number(span?.['lo'] ?? 0), hi: Number(span?.['hi'] ?? 0) + CLICK_DAYS * DAY_US },
  );
  await q.run(
    `INSERT INTO ${candidates}
     SELECT *, false FROM ${inReach} WHERE (ad_account_id, user_id) IN (SELECT account, user_id FROM ${added} WHERE type <> ${CONVERSION})`,
  );
  mark('attribution candidates');
  // Only touches a window can reach are read: the latest touch at or before a conversion, if it is in a window
  // at all, is among them, and is then the latest of them too. Clicks: a user's, from 30 days before their first
  // candidate to their last (one row per user; as a list of the 31 UTC days before each conversion, the join's
  // table held 2.9M rows for 10M events, and building it took longer than the scan). Impressions: the UTC day of
  // each conversion and the day before (most of a user's impressions fall outside those).
  await q.run(
    `CREATE TEMP TABLE ${clickUsers} AS
     SELECT ad_account_id, user_id, min(ts_us) - ${CLICK_DAYS * DAY_US} AS lo, max(ts_us) AS hi FROM ${candidates} GROUP BY ad_account_id, user_id`,
  );
  await q.run(
    `CREATE TEMP TABLE ${viewDays} AS
     SELECT DISTINCT c.ad_account_id, c.user_id, c.day - k.k AS day
     FROM (SELECT DISTINCT ad_account_id, user_id, ts_us // ${DAY_US} AS day FROM ${candidates}) c, range(${VIEW_DAYS + 1}) k(k)`,
  );
  // Touches as stored, with the load's new ones (marked new).
  const allEvents = `(SELECT ad_account_id, ${TOUCH_COLUMNS}, false AS is_new FROM events UNION ALL SELECT account, ${TOUCH_COLUMNS}, true FROM ${added})`;
  // Time bounds as constants, not subqueries: a scalar subquery in the filter hid the scan's size from the
  // planner, which then built the join's hash table on millions of touches instead of on the users or days.
  const clickRange = await q.get(`SELECT coalesce(min(lo), 0) AS lo, coalesce(max(hi), 0) AS hi FROM ${clickUsers}`);
  const viewRange = await q.get(`SELECT coalesce(min(day), 0) * ${DAY_US} AS lo, coalesce(max(day) + 1, 0) * ${DAY_US} AS hi FROM ${viewDays}`);
  // Each kind's touches, with their fields, one row per user and time: on a tie, the touch with the larger event
  // id, which carries its own fields out of the aggregate (arg_max). Reading the fields here, in the one scan
  // that finds the touches, spares a second scan of the stored events for the touches picked. Inner joins (one
  // row per user, or per user and day), so the hash table is built on the small side: as a semi join over the
  // union the planner built it on the touches instead (5 s for 22M impressions).
  const scans = [
    [clickTouches, 'click', clickRange, `${clickUsers} d ON e.ad_account_id = d.ad_account_id AND e.user_id = d.user_id AND e.ts_us BETWEEN d.lo AND d.hi`],
    [viewTouches, 'impression', viewRange, `${viewDays} d ON e.ad_account_id = d.ad_account_id AND e.user_id = d.user_id AND e.ts_us // ${DAY_US} = d.day`],
  ] as const;
  for (const [table, type, range, join] of scans) {
    await q.run(
      `CREATE TEMP TABLE ${table} AS
       SELECT e.ad_account_id, e.user_id, e.ts_us, max(e.event_id) AS touch_id,
         arg_max({ad_id: e.ad_id, country: e.country, device: e.device, platform: e.platform, product_feed_id: e.product_feed_id, product_item_id: e.product_item_id, is_new: e.is_new}, e.event_id) AS t
       FROM ${allEvents} e JOIN ${join}
       WHERE e.type = ${typeSql(type)} AND e.ts_us BETWEEN ${Number(range?.['lo'] ?? 0)} AND ${Number(range?.['hi'] ?? 0)}
       GROUP BY e.ad_account_id, e.user_id, e.ts_us`,
    );
    mark(`attribution ${type} touches`);
  }
  // The latest touch of each kind at or before each candidate (an ASOF join), with its fields.
  await q.run(
    `CREATE TEMP TABLE ${times} AS
     SELECT c.ad_account_id, c.user_id, c.event_id, c.ts_us, c.event_name, c.value, c.currency, c.is_new,
       k.ts_us AS click_ts, k.touch_id AS click_id, k.t AS click, v.ts_us AS view_ts, v.touch_id AS view_id, v.t AS view
     FROM ${candidates} c
     ASOF LEFT JOIN ${clickTouches} k ON k.ad_account_id = c.ad_account_id AND k.user_id = c.user_id AND k.ts_us <= c.ts_us
     ASOF LEFT JOIN ${viewTouches} v ON v.ad_account_id = c.ad_account_id AND v.user_id = c.user_id AND v.ts_us <= c.ts_us`,
  );
  // Affected: a new conversion, or one whose latest click or impression is new. Any other keeps both touches
  // it had before this load, and with them its attribution.
  await q.run(`CREATE TEMP TABLE ${affected} AS SELECT * FROM ${times} WHERE is_new OR coalesce(click.is_new, false) OR coalesce(view.is_new, false)`);
  mark('attribution latest touches');
  await q.run(
    `CREATE TEMP TABLE ${attributed} AS
     WITH chosen AS (
       SELECT l.*, w.click_window, w.view_window,
         CASE WHEN l.click_ts >= l.ts_us - w.click_window * ${DAY_US} THEN 'click'
              WHEN w.view_window = 1 AND l.view_ts >= l.ts_us - ${VIEW_DAYS * DAY_US} THEN 'view' END AS kind
       FROM ${affected} l, (SELECT * FROM (VALUES (7), (14), (30)) c(click_window), (VALUES (0), (1)) v(view_window)) w
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
  mark('attribution rows');
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
