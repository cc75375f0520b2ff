import { describe, expect, it } from 'vitest';
import { compileInsights, pageQuery } from '../../src/insights/compile.js';
import { normalizeInsights, type InsightsScope } from '../../src/insights/request.js';

/**
 * The compiler's invariants over a broad set of requests: no timezone
 * function in the SQL (local buckets come from rollup units and bucket intervals), no
 * request text in the SQL (values are parameters, identifiers come from the
 * catalog), and the account predicate on every source table.
 */
const NOW = Date.UTC(2026, 10, 22, 12);
const ACCOUNT = { timezone: 'Asia/Kathmandu', productSegments: true, zeroImpressionProducts: true };
const SCOPES: InsightsScope[] = [
  { accountId: 'adacct_1', level: 'ad_account', id: 'adacct_1' },
  { accountId: 'adacct_1', level: 'campaign', id: 'cmpn_1' },
  { accountId: 'adacct_1', level: 'ad_group', id: 'adgrp_1' },
  { accountId: 'adacct_1', level: 'ad', id: 'ad_1' },
];
const LEVELS = ['ad_account', 'campaign', 'ad_group', 'ad'] as const;
const RANGE = JSON.stringify({ type: 'date_range', since: '2026-10-01', until: '2026-10-31' });
const CTX = { today: '2026-11-22', countries: [{ code: 'NP', name: 'Nepal' }], watermark: 7, calendarZone: 'Asia/Kathmandu' };
/** Without calendar rollups (an account whose events have not loaded since 0010), every bucket reads quarter-hours. */
const CTX_NO_CALENDAR = { ...CTX, calendarZone: null };
const FORBIDDEN = /timezone\s*\(|at\s+time\s+zone|date_trunc|time_bucket|strftime|make_timestamptz|to_timestamp|date_part|extract\s*\(/i;

function* requests(): Generator<{ scope: InsightsScope; query: Record<string, string | string[]> }> {
  for (const scope of SCOPES) {
    for (const level of LEVELS.slice(LEVELS.indexOf(scope.level))) {
      for (const granularity of ['hourly', 'daily', 'monthly', 'none']) {
        for (const segment of [null, 'country', 'device', 'platform', 'product']) {
          if (segment !== null && granularity === 'hourly') continue;
          const conversions = segment !== 'platform';
          yield {
            scope,
            query: {
              aggregation_level: level,
              time_granularity: granularity,
              time_ranges: [RANGE],
              fields: [`${level}.id`, 'impressions', 'spend', 'ctr', ...(conversions ? ['conversions', 'order_created_roas'] : []), `${level}.${level === 'ad' ? 'title' : 'name'}`],
              sort: [JSON.stringify({ field: 'clicks', direction: 'desc' }), JSON.stringify({ field: `${level}.id`, direction: 'asc' })],
              filters: [
                JSON.stringify({ field: 'impressions', operator: 'GREATER_THAN', value: 1 }),
                JSON.stringify({ field: `${level}.id`, operator: 'IN', value: ['x'] }),
                ...(segment === 'country' ? [JSON.stringify({ field: 'country.name', operator: 'IN', value: ['Nepal'] })] : []),
                ...(segment === 'platform' ? [JSON.stringify({ field: 'platform', operator: 'IN', value: ['web'] })] : []),
              ],
              ...(segment === null ? { includes: ['zero_impression_items'] } : { segments: [segment] }),
              attribution_window_days: '7',
              view_through_attribution_window_days: '0',
              attribution_time_basis: granularity === 'daily' ? 'conversion_time' : 'ad_event_time',
            },
          };
        }
      }
    }
  }
}

describe('compiled insights SQL', () => {
  it('never applies a timezone function, and always restricts every source to the account', () => {
    let n = 0;
    for (const { scope, query } of requests()) {
      for (const ctx of [CTX, CTX_NO_CALENDAR]) {
        const req = normalizeInsights(scope, ACCOUNT, query, NOW);
        const compiled = pageQuery(compileInsights(req, ctx), 20, { direction: 'after', keys: compiled0Keys(req) });
        expect(compiled.sql).not.toMatch(FORBIDDEN);
        // Each read of a rollup or of attributions is followed by its own account predicate.
        for (const [table, alias] of [[/FROM rollup_(15m|1d|1mo) r /g, 'r'], [/FROM attributions a /g, 'a']] as const) {
          const reads = [...compiled.sql.matchAll(table)].length;
          const scoped = [...compiled.sql.matchAll(new RegExp(`WHERE ${alias}\\.ad_account_id = \\$`, 'g'))].length;
          expect(scoped).toBe(reads);
        }
        // Every parameter is used, and every placeholder is bound.
        const used = new Set([...compiled.sql.matchAll(/\$([a-z0-9_]+)/g)].map((m) => m[1]));
        expect(new Set(Object.keys(compiled.params))).toEqual(used);
        n++;
      }
    }
    expect(n).toBeGreaterThan(100);
  });

  it('keeps request text out of the SQL', () => {
    const hostile = `x'); DROP TABLE events; --`;
    const req = normalizeInsights(
      { accountId: hostile, level: 'campaign', id: `${hostile}"` },
      ACCOUNT,
      {
        aggregation_level: 'ad',
        time_ranges: [JSON.stringify({ type: 'date_range', since: '2026-10-01', until: '2026-10-31', timezone: 'Asia/Kolkata' })],
        segments: ['product'],
        filters: [
          JSON.stringify({ field: 'ad.id', operator: 'IN', value: [hostile] }),
          JSON.stringify({ field: 'product.feed_item_id', operator: 'IN', value: [JSON.stringify({ feed_id: hostile, item_id: hostile })] }),
          JSON.stringify({ field: 'ad.name', operator: 'IN', value: [hostile] }),
        ],
      },
      NOW,
    );
    const { sql, params } = compileInsights(req, CTX);
    expect(sql).not.toContain('DROP');
    expect(sql).not.toContain(hostile);
    expect(Object.values(params).map(String).join(' ')).toContain('DROP TABLE');
    // Names that are not in the catalog never get that far.
    expect(() => normalizeInsights(SCOPES[0] as InsightsScope, ACCOUNT, { fields: [`impressions; ${hostile}`] }, NOW)).toThrow(/Unknown field/);
  });
});

/** Keys of a cursor shaped like the request's sort (values are placeholders). */
function compiled0Keys(req: ReturnType<typeof normalizeInsights>): (string | number)[] {
  return compileInsights(req, CTX).keyColumns.map((_, i) => (i % 2 === 0 ? 0 : 'k'));
}
