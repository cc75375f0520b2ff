import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadEventFile } from '../../src/ingest/load-events.js';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { attributeConversion } from '../support/reference.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Attribution against a straightforward reference written here from
 * EVENTS.md, on random small data sets loaded in random order and in up to
 * three loads, for every click and view window.
 */
const NOW = Date.UTC(2026, 10, 22, 12);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let t: TestApp;
let run = 0;
beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(NOW) });
});
afterAll(() => t.close());

interface Ev {
  event_id: string;
  type: 'click' | 'impression' | 'conversion';
  user: string;
  ts: number;
  ad: number;
}

async function accountWithAds(): Promise<{ accountId: string; ads: string[] }> {
  const acct = await makeAccount(t);
  const post = async (url: string, payload: object) => (await t.app.inject({ method: 'POST', url, headers: bearer(acct.key), payload })).json().id as string;
  const campaign = await post('/v1/campaigns', { name: 'Attr', status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 } });
  const group = await post('/v1/ad_groups', { campaign_id: campaign, name: 'Group', bidding_config: { max_bid_micros: 1 } });
  const file = await insertFile(t.store, acct.accountId, null);
  const ads = [];
  for (let i = 0; i < 2; i++) ads.push(await post('/v1/ads', { ad_group_id: group, name: `Ad ${i}`, creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: file } }));
  return { accountId: acct.accountId, ads };
}

/** The shared reference (test/support/reference.ts) on this test's events. */
function reference(events: Ev[], conv: Ev, clickDays: number, viewDays: number): { kind: string; touch: string } | null {
  const ref = (e: Ev) => ({ ...e, ad: String(e.ad) });
  const a = attributeConversion(events.map(ref), ref(conv), clickDays, viewDays);
  return a === null ? null : { kind: a.kind, touch: a.touch.event_id };
}

const eventArb = fc.record({
  type: fc.constantFrom('click', 'impression', 'conversion') as fc.Arbitrary<Ev['type']>,
  user: fc.constantFrom('u1', 'u2'),
  // Coarse times (6-hour steps over 36 days) so that ties and window edges happen often.
  ts: fc.integer({ min: 0, max: 144 }).map((k) => NOW - 37 * DAY + k * 6 * HOUR),
  ad: fc.integer({ min: 0, max: 1 }),
});

describe('attribution', () => {
  it('matches the reference for every window pair, whatever the load order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(eventArb, { minLength: 20, maxLength: 60 }), fc.array(fc.nat(), { minLength: 60, maxLength: 60 }), fc.nat({ max: 60 }), fc.nat({ max: 60 }), fc.integer({ min: 4, max: 64 }), async (raw, order, cutA, cutB, chunkLines) => {
        run++;
        const { accountId, ads } = await accountWithAds();
        const events: Ev[] = raw.map((e, i) => ({ ...e, event_id: `a${run}-${String(i).padStart(2, '0')}` }));
        const shuffled = events.map((e, i) => ({ e, k: order[i] ?? 0 })).sort((x, y) => x.k - y.k).map((x) => x.e);
        const line = (e: Ev) =>
          JSON.stringify(
            e.type === 'conversion'
              ? { event_id: e.event_id, type: e.type, timestamp: e.ts, user_id: e.user, ad_account_id: accountId, event_name: 'order_created' }
              : { event_id: e.event_id, type: e.type, timestamp: e.ts, user_id: e.user, ad_id: ads[e.ad] },
          );
        // Three loads, so later touches correct conversions stored by earlier loads, and earlier ones stay put;
        // each load is committed in chunks of `chunkLines` lines, which are loads of their own.
        const [lo, hi] = [Math.min(cutA, cutB), Math.max(cutA, cutB)];
        for (const [i, part] of [shuffled.slice(0, lo), shuffled.slice(lo, hi), shuffled.slice(hi)].entries()) {
          if (part.length === 0) continue;
          const path = join(t.dataDir, `attr-${run}-${i}.ndjson`);
          writeFileSync(path, part.map(line).join('\n') + '\n');
          await loadEventFile(t, { runId: 'attr', path, format: 'ndjson', source: 'test', scopeAccountId: null }, { chunkLines });
        }
        const rows = await t.store.all(
          'SELECT conversion_event_id, click_window, view_window, kind, touch_event_id, ad_id FROM attributions WHERE ad_account_id = $a AND valid_to IS NULL',
          { a: accountId },
        );
        const got = new Map(rows.map((r) => [`${r['conversion_event_id']} ${r['click_window']} ${r['view_window']}`, `${r['kind']} ${r['touch_event_id']} ${r['ad_id']}`]));
        const want = new Map<string, string>();
        for (const c of events.filter((e) => e.type === 'conversion')) {
          for (const cw of [7, 14, 30]) {
            for (const vw of [0, 1]) {
              const r = reference(events, c, cw, vw);
              if (r) want.set(`${c.event_id} ${cw} ${vw}`, `${r.kind} ${r.touch} ${ads[(events.find((e) => e.event_id === r.touch) as Ev).ad]}`);
            }
          }
        }
        expect(got).toEqual(want);
      }),
      { numRuns: 60 },
    );

  });
});
