import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { compileInsights, pageQuery, Params } from '../../src/insights/compile.js';
import { normalizeInsights } from '../../src/insights/request.js';
import type { Store } from '../../src/store/store.js';
import { openMigratedStore, tempDir } from '../support/context.js';

/**
 * The compiler's exact output for a representative request (campaign level,
 * daily, two local days in Asia/Kolkata, sorted by clicks), then that SQL run
 * over hand-placed rollup rows, some of which it must leave out: another
 * account, another segment, a load after the watermark, a day outside the range.
 */
const NOW = Date.UTC(2026, 10, 22, 12);
const ZONE = 'Asia/Kolkata';
const day = (iso: string) => DateTime.fromISO(iso, { zone: ZONE }).toSeconds() / 900;
const D1 = day('2026-10-01');
const D2 = day('2026-10-02');

const dir = tempDir();
let store: Store;
beforeAll(async () => {
  store = await openMigratedStore(dir.path, new ManualClock(NOW));
  const rows: [string, number, string, string, number, number, number][] = [
    // account, day, campaign, segment, clicks, spend micros, load
    ['adacct_1', D1, 'cmpn_a', 'none', 5, 1_000, 3],
    ['adacct_1', D1, 'cmpn_a', 'none', 2, 500, 7],
    ['adacct_1', D1, 'cmpn_b', 'none', 9, 2_000, 5],
    ['adacct_1', D2, 'cmpn_a', 'none', 4, 700, 6],
    ['adacct_1', D2, 'cmpn_a', 'none', 100, 9_000, 8], // after the watermark
    ['adacct_1', D2, 'cmpn_b', 'country', 50, 1, 6], // a segment row
    ['adacct_2', D2, 'cmpn_c', 'none', 70, 1, 6], // another account
    ['adacct_1', day('2026-10-03'), 'cmpn_b', 'none', 80, 1, 6], // outside the range
  ];
  for (const [account, bucket, campaign, segment, clicks, spend, load] of rows) {
    await store.run(
      `INSERT INTO rollup_1d VALUES ($account, $bucket, $campaign, 'adgrp_x', 'ad_x', $segment, NULL, NULL, NULL, $imp, $clicks, $spend, $load)`,
      { account, bucket, campaign, segment, imp: clicks * 10, clicks, spend, load },
    );
  }
});
afterAll(async () => {
  await store.close();
  dir.cleanup();
});

describe('compiled insights SQL, exactly', () => {
  const req = normalizeInsights(
    { accountId: 'adacct_1', level: 'ad_account', id: 'adacct_1' },
    { timezone: ZONE, productSegments: false, zeroImpressionProducts: false },
    {
      aggregation_level: 'campaign',
      time_granularity: 'daily',
      time_ranges: [JSON.stringify({ type: 'date_range', since: '2026-10-01', until: '2026-10-02' })],
      fields: ['campaign.id', 'clicks', 'spend'],
      sort: [JSON.stringify({ field: 'clicks', direction: 'desc' })],
    },
    NOW,
  );
  const compiled = compileInsights(req, { today: '2026-11-22', countries: [], watermark: 7, calendarZone: ZONE });

  it('reads whole local days from the day rollup, with every value a parameter', () => {
    expect(compiled.sql).toBe(`WITH dlv AS (
    SELECT b, campaign_id, sum(impressions) AS imp, sum(clicks) AS clk, sum(spend_micros) AS spend
    FROM (
      SELECT um.b, r.campaign_id, r.impressions, r.clicks, r.spend_micros
      FROM rollup_1d r JOIN (SELECT unnest(string_split($p6, ',')::BIGINT[]) AS q, unnest(string_split($p7, ',')::INTEGER[]) AS b) um ON um.q = r.bucket
      WHERE r.ad_account_id = $p2
        AND r.segment = $p3
        AND r.bucket >= $p4 AND r.bucket <= $p5
        AND r.load_seq <= $p1
    ) u
    GROUP BY ALL
  ), grp AS (
    SELECT d.*, 0 AS conv_click, 0 AS conv_view, NULL::DECIMAL(38, 9) AS sales FROM dlv d
  ), met AS (
    SELECT g.b, g.ad_account_id, g.campaign_id, false AS synthetic, g.clk AS m_clicks, g.spend / 1000000.0 AS m_spend
    FROM (SELECT g.*, anc.ad_account_id FROM grp g LEFT JOIN campaigns anc ON anc.id = g.campaign_id) g 
  )
  SELECT *, (m_clicks IS NULL)::INTEGER AS k0, coalesce(m_clicks::DOUBLE, 0) AS k1, b AS k2, coalesce(ad_account_id, '') AS k3, coalesce(campaign_id, '') AS k4
  FROM met
  `);
    expect(compiled.params).toMatchObject({ p1: 7, p2: 'adacct_1', p3: 'none', p4: D1, p5: D2 });
    // Lists of integers are bound as one string each (Params.addIntegers).
    expect(compiled.params['p6']).toBe(`${D1},${D2}`);
    expect(compiled.params['p7']).toBe('0,1');
    expect(compiled.keyDirections).toEqual(['asc', 'desc', 'asc', 'asc', 'asc']);
  });

  it('runs, and counts only the rows in scope, range, segment and snapshot', async () => {
    const page = pageQuery(compiled, 10, null);
    expect(page.sql).toBe(`SELECT * FROM (${compiled.sql}) page  ORDER BY k0 ASC, k1 DESC, k2 ASC, k3 ASC, k4 ASC LIMIT $pg${Object.keys(compiled.params).length}`);
    const rows = await store.all(page.sql, page.params);
    expect(rows.map((r) => [Number(r['b']), r['campaign_id'], Number(r['m_clicks']), Number(r['m_spend'])])).toEqual([
      [0, 'cmpn_b', 9, 0.002],
      [0, 'cmpn_a', 7, 0.0015],
      [1, 'cmpn_a', 4, 0.0007],
    ]);
  });
});

describe('integer lists bound as text', () => {
  it('read back as the same list, empty included, and refuse anything but safe integers', async () => {
    for (const values of [[], [0], [-3, 7, 2_000_000_000_000_000, 9_007_199_254_740_991]]) {
      const p = new Params();
      const expr = p.addIntegers(values, 'BIGINT');
      const row = await store.get(`SELECT ${expr} AS l`, p.values);
      expect((row?.['l'] as unknown[]).map(Number)).toEqual(values);
    }
    const p = new Params();
    const row = await store.get(`SELECT ${p.addIntegers([5, 6], 'INTEGER')} AS l`, p.values);
    expect(row?.['l']).toEqual([5, 6]);
    for (const bad of [1.5, Number.NaN, 2 ** 53]) expect(() => new Params().addIntegers([1, bad], 'BIGINT')).toThrow(/not an integer/);
  });
});
