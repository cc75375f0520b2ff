import type { Queryable } from '../store/store.js';

/**
 * Last-touch, click-first attribution (EVENTS.md) for every conversion of
 * the (account, user) pairs a load touched, recomputed from stored events: a
 * late click or impression corrects earlier conversions, and the result does
 * not depend on the order events arrived in.
 *
 * The latest click at or before a conversion is found once (an ASOF join);
 * it is the attributed click for every click window it falls in, since an
 * older click cannot be inside a window the latest one is outside of. Ties
 * on time go to the larger event id (pre-aggregated per time).
 */
const DAY_US = 86_400_000_000;

/** `added`: the new events (account, user_id); `tag` names the temporary tables. */
export async function refreshAttribution(tx: Queryable, added: string, tag: string, seq: number): Promise<void> {
  const [touched, users] = [`touched_users_${tag}`, `users_${tag}`];
  await tx.run(`CREATE TEMP TABLE ${touched} AS SELECT DISTINCT account, user_id FROM ${added} WHERE user_id IS NOT NULL`);
  try {
    // The touched users' rows end with this load (kept for snapshot reads until compaction); their new rows start with it.
    await tx.run(
      `UPDATE attributions a SET valid_to = $seq FROM ${touched} u WHERE a.ad_account_id = u.account AND a.user_id = u.user_id AND a.valid_to IS NULL`,
      { seq },
    );
    // Only users with conversions have any to attribute: the others' touches are not read at all.
    await tx.run(
      `CREATE TEMP TABLE ${users} AS
       SELECT * FROM ${touched} u WHERE EXISTS (SELECT 1 FROM events e WHERE e.type = 'conversion' AND e.ad_account_id = u.account AND e.user_id = u.user_id)`,
    );
    if (Number((await tx.get(`SELECT count(*) AS n FROM ${users}`))?.['n']) === 0) return;
    // Only touches on a conversion's UTC day or the `days` days before it can be in a window (30 days for
    // clicks, 1 for views), so only those are read: the latest touch at or before a conversion, if it is
    // in the window at all, is among them, and is then the latest of them too.
    const touches = (type: string, days: number) =>
      `SELECT e.ad_account_id, e.user_id, e.ts_us, max(e.event_id) AS event_id
       FROM events e SEMI JOIN (
         SELECT DISTINCT c.ad_account_id, c.user_id, c.day - k.k AS day FROM conv_days c, range(${days + 1}) k(k)
       ) d ON e.ad_account_id = d.ad_account_id AND e.user_id = d.user_id AND e.ts_us // ${DAY_US} = d.day
       WHERE e.type = '${type}' GROUP BY ALL`;
    const attributed = `
       WITH convs AS (
         SELECT e.* FROM events e JOIN ${users} u ON e.ad_account_id = u.account AND e.user_id = u.user_id WHERE e.type = 'conversion'
       ), conv_days AS (
         SELECT DISTINCT ad_account_id, user_id, ts_us // ${DAY_US} AS day FROM convs
       ), clicks AS (${touches('click', 30)}), views AS (${touches('impression', 1)}),
       latest AS (
         SELECT c.ad_account_id, c.user_id, c.event_id, c.ts_us, c.event_name, c.value, c.currency,
           k.event_id AS click_id, k.ts_us AS click_ts, v.event_id AS view_id, v.ts_us AS view_ts
         FROM convs c
         ASOF LEFT JOIN clicks k ON k.ad_account_id = c.ad_account_id AND k.user_id = c.user_id AND k.ts_us <= c.ts_us
         ASOF LEFT JOIN views v ON v.ad_account_id = c.ad_account_id AND v.user_id = c.user_id AND v.ts_us <= c.ts_us
       ), chosen AS (
         SELECT l.*, w.click_window, w.view_window,
           CASE WHEN l.click_ts >= l.ts_us - w.click_window * ${DAY_US} THEN 'click'
                WHEN w.view_window = 1 AND l.view_ts >= l.ts_us - ${DAY_US} THEN 'view' END AS kind
         FROM latest l, (SELECT * FROM (VALUES (7), (14), (30)) c(click_window), (VALUES (0), (1)) v(view_window)) w
       )
       SELECT ch.ad_account_id, ch.user_id, ch.event_id, ch.click_window, ch.view_window, ch.kind, t.event_id,
         t.ad_id, t.ad_group_id, t.campaign_id, t.country, t.device, t.platform, t.product_feed_id, t.product_item_id,
         t.ts_us, ch.ts_us, ch.event_name, ch.value, ch.currency, $seq, NULL
       FROM chosen ch
       JOIN events t ON t.ad_account_id = ch.ad_account_id
         AND t.event_id = CASE ch.kind WHEN 'click' THEN ch.click_id ELSE ch.view_id END
       WHERE ch.kind IS NOT NULL`;
    await tx.run(`INSERT INTO attributions ${attributed}`, { seq });
  } finally {
    for (const t of [touched, users]) await tx.run(`DROP TABLE IF EXISTS ${t}`);
  }
}
