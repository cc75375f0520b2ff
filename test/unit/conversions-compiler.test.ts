import { describe, expect, it } from 'vitest';
import { breakdownProbeSql, eventsSql, goalSettingsStatement, summarySql, type GoalSetting, type Statement } from '../../src/conversions/compile.js';
import { decimalText } from '../../src/conversions/response.js';
import { normalizeConversionInsights, type ConversionRequest } from '../../src/conversions/request.js';
import { ApiError } from '../../src/errors/api-error.js';

/**
 * The conversion insights compiler's invariants over every request shape: no
 * timezone function in the SQL (local days are instants computed in JS), no
 * request text in the SQL (values are bound parameters), the account
 * predicate on every read of attributions and campaigns, every parameter
 * bound and used; and the normalizer's defaults (spec: Conversion insights).
 */
const NOW = Date.UTC(2026, 10, 22, 12);
const ACCOUNT = { id: 'adacct_1', timezone: 'Asia/Kathmandu' };
const RANGE = JSON.stringify({ type: 'date_range', since: '2026-10-01', until: '2026-10-31' });
const FORBIDDEN = /timezone\s*\(|at\s+time\s+zone|date_trunc|time_bucket|strftime|make_timestamptz|to_timestamp|date_part|extract\s*\(/i;

function* requests(): Generator<ConversionRequest> {
  for (const aggregation_level of ['campaign', 'ad_group', 'ad'])
    for (const time_granularity of ['none', 'daily'])
      for (const breakdown of [null, 'country', 'device'])
        for (const [group_by_entity, entity_ids] of [
          [true, ['x1', 'x2']],
          [false, undefined],
          [false, ['x1']],
        ] as const)
          for (const expand of [false, true])
            for (const include_zero_rows of [true, false])
              for (const attribution_time_basis of ['ad_event_time', 'conversion_time']) {
                yield normalizeConversionInsights(
                  ACCOUNT,
                  {
                    aggregation_level,
                    time_ranges: [RANGE],
                    time_granularity,
                    breakdown,
                    group_by_entity,
                    ...(entity_ids === undefined ? {} : { entity_ids }),
                    attribution_time_basis,
                    include: expand ? ['attributed_events'] : [],
                    ...(expand ? { event_names: ['order_created', 'quiz'] } : {}),
                    include_zero_rows,
                  },
                  NOW,
                );
              }
}

const GOALS: GoalSetting[] = [
  { campaignId: 'c1', settingId: 's1', eventName: 'order_created' },
  { campaignId: 'c1', settingId: 's2', eventName: "x'); DROP TABLE campaigns; --" },
];
const statements = (req: ConversionRequest): Statement[] => [
  goalSettingsStatement(req),
  summarySql(req, GOALS, 7, 2000),
  eventsSql(req, GOALS, 7, 2000),
  breakdownProbeSql(req, GOALS, 7, 2000),
];

describe('compiled conversion insights SQL', () => {
  it('never applies a timezone function, scopes every read to the account, binds every parameter it uses', () => {
    let n = 0;
    for (const req of requests()) {
      for (const s of statements(req)) {
        expect(s.sql).not.toMatch(FORBIDDEN);
        for (const [table, alias] of [
          [/FROM attributions a /g, 'a'],
          [/FROM campaigns c\b/g, 'c'],
        ] as const) {
          const reads = [...s.sql.matchAll(table)].length;
          const scoped = [...s.sql.matchAll(new RegExp(`${alias}\\.ad_account_id = \\$p\\d+`, 'g'))].length;
          expect(scoped).toBe(reads);
        }
        const used = new Set([...s.sql.matchAll(/\$([a-z0-9_]+)/g)].map((m) => m[1]));
        expect(new Set(Object.keys(s.params))).toEqual(used);
        n++;
      }
    }
    expect(n).toBeGreaterThan(500);
  });

  it('keeps hostile ids and event names out of the SQL text', () => {
    const hostile = "x'); DROP TABLE attributions; --";
    const req = normalizeConversionInsights(
      ACCOUNT,
      { aggregation_level: 'ad', time_ranges: [RANGE], entity_ids: [hostile], include: ['attributed_events'], event_names: [hostile] },
      NOW,
    );
    for (const s of statements(req)) {
      expect(s.sql).not.toContain('DROP');
      expect(s.sql).not.toContain(hostile);
    }
  });

  it('maps days with one start instant per local day, not quarter-hours', () => {
    const req = normalizeConversionInsights(ACCOUNT, { aggregation_level: 'ad', time_ranges: [RANGE], time_granularity: 'daily', entity_ids: ['x'] }, NOW);
    expect(req.buckets).toHaveLength(31);
    const s = summarySql(req, GOALS, 7, 2000);
    const starts = Object.values(s.params).find((v) => String(v).includes(String(req.buckets[0]!.startS * 1_000_000)));
    expect(starts).toBeDefined();
    // Kathmandu is UTC+5:45: the first local day starts at 18:15 UTC the day before.
    expect(new Date(req.buckets[0]!.startS * 1000).toISOString()).toBe('2026-09-30T18:15:00.000Z');
  });
});

describe('conversion insights request defaults', () => {
  it('fills every default of the spec explicitly', () => {
    const req = normalizeConversionInsights(ACCOUNT, { aggregation_level: 'campaign', time_ranges: [RANGE], entity_ids: ['c1', 'c2', 'c1'] }, NOW);
    expect(req).toMatchObject({
      granularity: 'none',
      groupByEntity: true,
      entityIds: ['c1', 'c2'],
      breakdown: null,
      attribution: { clickDays: 30, viewDays: 1, basis: 'ad_event_time' },
      expandEvents: false,
      eventNames: null,
      includeZeroRows: true,
    });
    expect(req.buckets).toHaveLength(1);
  });

  it('takes unix_range bounds as integers or numeric strings', () => {
    const start = Date.UTC(2026, 9, 1) / 1000 - (5 * 3600 + 45 * 60);
    const end = start + 7 * 86_400;
    for (const range of [{ type: 'unix_range', start, end }, { type: 'unix_range', start: String(start), end: String(end) }]) {
      const req = normalizeConversionInsights(ACCOUNT, { aggregation_level: 'ad', time_ranges: [JSON.stringify(range)], group_by_entity: false }, NOW);
      expect([req.range.startS, req.range.endS]).toEqual([start, end]);
    }
  });

  it('refuses an event selector without the expansion, naming it', () => {
    const run = () => normalizeConversionInsights(ACCOUNT, { aggregation_level: 'ad', time_ranges: [RANGE], group_by_entity: false, event_names: ['x'] }, NOW);
    expect(run).toThrow(ApiError);
    expect(() => run()).toThrow(/include/);
  });
});

describe('sales as exact decimal text', () => {
  it('drops trailing zeros and nothing else', () => {
    expect(decimalText('12.340000000')).toBe('12.34');
    expect(decimalText('12.000000000')).toBe('12');
    expect(decimalText('0.000000001')).toBe('0.000000001');
    expect(decimalText('1000')).toBe('1000');
    expect(decimalText(null)).toBeNull();
  });
});
