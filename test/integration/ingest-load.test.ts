import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadEventFile, type LoadRequest } from '../../src/ingest/load-events.js';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * The file loader against an independent computation in the test: counts of
 * valid, duplicate and quarantined rows, and billable spend per account-local
 * day computed here with Intl from the generated events.
 */
const NOW = Date.UTC(2026, 10, 22, 12);
const DAY = 86_400_000;

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Acct {
  id: string;
  key: string;
  tz: string;
  ads: string[];
}
type Ev = Record<string, string | number | undefined>;

let t: TestApp;
const accts: Acct[] = [];

async function setupAccount(tz: string): Promise<Acct> {
  const { accountId, key } = await makeAccount(t, { timezone: tz });
  const post = async (url: string, payload: object) => (await t.app.inject({ method: 'POST', url, headers: bearer(key), payload })).json().id as string;
  const campaign = await post('/v1/campaigns', { name: 'Ingest', status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 } });
  const group = await post('/v1/ad_groups', { campaign_id: campaign, name: 'Group', bidding_config: { max_bid_micros: 1 } });
  const file = await insertFile(t.store, accountId, null);
  const ads: string[] = [];
  for (let i = 0; i < 3; i++) ads.push(await post('/v1/ads', { ad_group_id: group, name: `Ad ${i}`, creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: file } }));
  return { id: accountId, key, tz, ads };
}

beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(NOW) });
  accts.push(await setupAccount('America/New_York'), await setupAccount('Asia/Kolkata'));
});
afterAll(() => t.close());

function generate(seed: number, n: number): Ev[] {
  const r = rng(seed);
  const out: Ev[] = [];
  for (let i = 0; i < n; i++) {
    const a = accts[Math.floor(r() * accts.length)] as Acct;
    const ts = NOW - Math.floor(r() * 5 * DAY);
    const kind = r();
    const base: Ev = { event_id: `s${seed}-e${i}`, timestamp: r() < 0.5 ? ts : new Date(ts).toISOString(), user_id: `u${Math.floor(r() * 50)}` };
    if (kind < 0.7) out.push({ ...base, type: 'impression', ad_id: a.ads[Math.floor(r() * 3)], cost_micros: Math.floor(r() * 5000), country: 'US', device: 'mobile' });
    else if (kind < 0.9) out.push({ ...base, type: 'click', ad_id: a.ads[Math.floor(r() * 3)], cost_micros: Math.floor(r() * 300_000), platform: 'ios_app' });
    else out.push({ ...base, type: 'conversion', ad_account_id: a.id, event_name: 'order_created', value: '12.50', currency: 'USD' });
  }
  return out;
}

/** Each bad kind: its reason, what the quarantine says of it, and the row. */
const BAD: [string, string, Ev | string][] = [
  ['invalid_json', 'the line is not a JSON object', '{"event_id": "x1", "type": '],
  ['missing_field', 'event_id is required', { type: 'impression', timestamp: NOW, ad_id: 'AD' }],
  ['missing_field', 'user_id is required for clicks and conversions', { event_id: 'b2', type: 'click', timestamp: NOW, ad_id: 'AD' }],
  ['invalid_value', 'type must be one of impression, click, conversion', { event_id: 'b3', type: 'view', timestamp: NOW, ad_id: 'AD' }],
  ['invalid_value', 'timestamp must be Unix milliseconds or ISO 8601 with an offset or Z', { event_id: 'b4', type: 'impression', timestamp: '2026-11-22T10:00:00', ad_id: 'AD' }],
  ['invalid_value', 'cost_micros must be an integer from 0', { event_id: 'b5', type: 'impression', timestamp: NOW, ad_id: 'AD', cost_micros: -5 }],
  ['invalid_value', 'country must be an upper-case ISO 3166-1 alpha-2 code', { event_id: 'b6', type: 'impression', timestamp: NOW, ad_id: 'AD', country: 'usa' }],
  ['invalid_value', 'product_feed_id and product_item_id go together', { event_id: 'b7', type: 'impression', timestamp: NOW, ad_id: 'AD', product_feed_id: 'f' }],
  ['invalid_value', 'timestamp is before 2000-01-01T00:00:00Z', { event_id: 'b8', type: 'impression', timestamp: '1999-12-31T23:59:59Z', ad_id: 'AD' }],
  ['future_timestamp', 'timestamp is more than 10 minutes after the load', { event_id: 'b9', type: 'impression', timestamp: NOW + 11 * 60_000, ad_id: 'AD' }],
  ['unknown_ad', 'ad_id names no ad', { event_id: 'b10', type: 'impression', timestamp: NOW, ad_id: 'ad_nope' }],
  ['account_mismatch', "ad_account_id is not the ad's account", { event_id: 'b11', type: 'impression', timestamp: NOW, ad_id: 'AD', ad_account_id: 'OTHER' }],
  [
    'currency_mismatch',
    "currency is not the account's currency",
    { event_id: 'b12', type: 'conversion', timestamp: NOW, user_id: 'u', ad_account_id: 'ACCT', event_name: 'order_created', value: '1', currency: 'EUR' },
  ],
  ['unknown_account', 'ad_account_id names no ad account', { event_id: 'b13', type: 'conversion', timestamp: NOW, user_id: 'u', ad_account_id: 'adacct_nope', event_name: 'x' }],
  ['invalid_value', 'cost_micros is not allowed on conversions', { event_id: 'b14', type: 'conversion', timestamp: NOW, user_id: 'u', ad_account_id: 'ACCT', event_name: 'x', cost_micros: 5 }],
  ['missing_field', 'currency is required with a value', { event_id: 'b15', type: 'conversion', timestamp: NOW, user_id: 'u', ad_account_id: 'ACCT', event_name: 'x', value: '3' }],
  // Two events with an empty id would otherwise be one event and a duplicate.
  ['invalid_value', 'event_id must be 1 to 128 characters', { event_id: '', type: 'impression', timestamp: NOW, ad_id: 'AD' }],
  ['invalid_value', 'event_id must be 1 to 128 characters', { event_id: '', type: 'impression', timestamp: NOW + 1, ad_id: 'AD' }],
  ['invalid_value', 'event_id must be 1 to 128 characters', { event_id: 'x'.repeat(129), type: 'impression', timestamp: NOW, ad_id: 'AD' }],
];

function badRows(): (Ev | string)[] {
  const a = accts[0] as Acct;
  return BAD.map(([, , row]) =>
    typeof row === 'string' ? row : Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === 'AD' ? a.ads[0] : v === 'ACCT' ? a.id : v === 'OTHER' ? (accts[1] as Acct).id : v])),
  );
}

const writeNdjson = (name: string, rows: (Ev | string)[]) => {
  const path = join(t.dataDir, name);
  writeFileSync(path, rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
  return path;
};

const load = (path: string, extra: Partial<LoadRequest> = {}) =>
  loadEventFile(t, { runId: 'run_test', path, format: 'ndjson', source: 'test', scopeAccountId: null, ...extra });

/** Independent expectation: spend per account and local day, from the generated rows. */
function expectedSpend(events: Ev[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of events) {
    if (e['type'] === 'conversion') continue;
    const acct = accts.find((a) => a.ads.includes(String(e['ad_id']))) as Acct;
    const ms = typeof e['timestamp'] === 'number' ? e['timestamp'] : Date.parse(String(e['timestamp']));
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: acct.tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);
    const k = `${acct.id} ${day}`;
    out.set(k, (out.get(k) ?? 0) + Number(e['cost_micros'] ?? 0));
  }
  return out;
}

async function storedSpend(): Promise<Map<string, number>> {
  const rows = await t.store.all('SELECT ad_account_id, day, spent_micros FROM account_daily_spend');
  return new Map(rows.map((r) => [`${r['ad_account_id']} ${r['day']}`, Number(r['spent_micros'])]));
}

describe('loading an NDJSON file', () => {
  it('stores valid rows once, quarantines each bad kind with its line, and fills daily spend', async () => {
    const good = generate(1, 3000);
    const rows: (Ev | string)[] = [...good.slice(0, 100), ...badRows(), ...good.slice(100), good[5] as Ev, good[6] as Ev];
    const path = writeNdjson('one.ndjson', rows);
    const summary = await load(path);
    const expectedReasons: Record<string, number> = {};
    for (const [reason] of BAD) expectedReasons[reason] = (expectedReasons[reason] ?? 0) + 1;
    expect(summary).toEqual({ rows_read: rows.length, stored: good.length, duplicates: 2, quarantined: BAD.length, quarantined_by_reason: expectedReasons });
    const q = await t.store.all("SELECT line_no, reason, detail FROM event_quarantine WHERE run_id = 'run_test' ORDER BY line_no");
    expect(q).toEqual(BAD.map(([reason, detail], i) => ({ line_no: 101 + i, reason, detail })));
    expect(await storedSpend()).toEqual(expectedSpend(good));
    const again = await load(path);
    expect(again).toMatchObject({ stored: 0, duplicates: good.length + 2 });
    expect(await t.store.get('SELECT count(*) AS n FROM events')).toEqual({ n: good.length });
  });

  it('takes later files incrementally and keeps spend exact', async () => {
    const before = await t.store.get('SELECT count(*) AS n FROM events');
    const more = generate(2, 1500);
    const summary = await load(writeNdjson('two.ndjson', more));
    expect(summary).toMatchObject({ stored: 1500, duplicates: 0, quarantined: 0 });
    expect(await t.store.get('SELECT count(*) AS n FROM events')).toEqual({ n: Number(before?.['n']) + 1500 });
    expect(await storedSpend()).toEqual(expectedSpend([...generate(1, 3000), ...more]));
  });

  it('still finds stored events after DuckDB changed its hash (an upgrade): the stored key hashes are made again first', async () => {
    const before = await t.store.get('SELECT count(*) AS n FROM events');
    // As a different hash function would leave them: every stored hash, and the fixed key's, differ from today's.
    await t.store.run('UPDATE events SET key_hash = key_hash + 1');
    await t.store.run('UPDATE event_key_hash SET probe = probe + 1');
    const again = await load(writeNdjson('two-again.ndjson', generate(2, 1500)));
    expect(again).toMatchObject({ stored: 0, duplicates: 1500 });
    expect(await t.store.get('SELECT count(*) AS n FROM events')).toEqual(before);
    expect(await t.store.get('SELECT count(*) AS n FROM events WHERE key_hash IS DISTINCT FROM hash(ad_account_id, event_id)')).toEqual({ n: 0 });
  });

  it('reads each line by its JSON shape: objects (leading blanks too) load, other JSON is invalid_json, fields of a wrong JSON type are invalid_value', async () => {
    const ad = (accts[0] as Acct).ads[0] as string;
    const ok = (id: string) => JSON.stringify({ event_id: id, type: 'impression', timestamp: NOW - DAY, ad_id: ad, cost_micros: 7 });
    const lines: [string, string | null][] = [
      [ok('sh1'), null],
      [`  \t${ok('sh2')}`, null],
      ['[1, 2]', 'invalid_json'],
      ['"just text"', 'invalid_json'],
      ['42', 'invalid_json'],
      ['{"event_id": "sh3", "type": "impression"', 'invalid_json'],
      [`{"event_id": "sh4", "type": "impression", "timestamp": ${NOW - DAY}, "ad_id": "${ad}", "cost_micros": true}`, 'invalid_value'],
      [`{"event_id": "sh5", "type": "impression", "timestamp": ${NOW - DAY}, "ad_id": {"id": "${ad}"}}`, 'invalid_value'],
      [`{"event_id": "sh6", "type": "impression", "timestamp": ${NOW - DAY}, "ad_id": "${ad}", "country": ["US"]}`, 'invalid_value'],
      // Braces, brackets and the words true and false inside strings are text, not types.
      [`{"event_id": "sh7 {[true false", "type": "impression", "timestamp": ${NOW - DAY}, "ad_id": "${ad}", "user_id": "true"}`, null],
      // A number where text is expected is its text; JSON escapes are decoded.
      [`{"event_id": 12345, "type": "impr\\u0065ssion", "timestamp": ${NOW - DAY}, "ad_id": "${ad}"}`, null],
    ];
    // Between two thousand good lines, so the bad ones share their vectors with good ones.
    const pad = (from: number) => Array.from({ length: 2000 }, (_, i) => ok(`shp${from + i}`));
    const path = join(t.dataDir, 'shapes.ndjson');
    // Blank lines (empty, or spaces only) are no rows at all.
    writeFileSync(path, [...pad(0), ...lines.map(([l]) => l), ...pad(2000), '', '    '].join('\n') + '\n');
    const summary = await load(path, { runId: 'run_shapes' });
    const bad = lines.flatMap(([, reason], i) => (reason === null ? [] : [{ line_no: 2001 + i, reason }]));
    expect(summary).toMatchObject({ rows_read: 4000 + lines.length, stored: 4000 + lines.length - bad.length, quarantined: bad.length });
    expect(await t.store.all("SELECT line_no, reason FROM event_quarantine WHERE run_id = 'run_shapes' ORDER BY line_no")).toEqual(bad);
    const stored = await t.store.all("SELECT event_id, type, user_id FROM events WHERE event_id IN ('sh1', 'sh2', 'sh7 {[true false', '12345') ORDER BY event_id");
    expect(stored).toEqual([
      { event_id: '12345', type: 'impression', user_id: null },
      { event_id: 'sh1', type: 'impression', user_id: null },
      { event_id: 'sh2', type: 'impression', user_id: null },
      { event_id: 'sh7 {[true false', type: 'impression', user_id: 'true' },
    ]);
  });

  it('scoped to an account, refuses events of other accounts', async () => {
    const [a, b] = accts as [Acct, Acct];
    const rows: Ev[] = [
      { event_id: 'sc1', type: 'impression', timestamp: NOW, ad_id: b.ads[0] },
      { event_id: 'sc2', type: 'conversion', timestamp: NOW, user_id: 'u', ad_account_id: b.id, event_name: 'lead_created' },
      { event_id: 'sc3', type: 'conversion', timestamp: NOW, user_id: 'u', event_name: 'lead_created' },
    ];
    const summary = await load(writeNdjson('scoped.ndjson', rows), { scopeAccountId: a.id, runId: 'run_scoped' });
    expect(summary.quarantined_by_reason).toEqual({ unknown_ad: 1, account_mismatch: 1 });
    // A conversion without ad_account_id belongs to the scope's account.
    expect(await t.store.get("SELECT ad_account_id FROM events WHERE event_id = 'sc3'")).toEqual({ ad_account_id: a.id });
  });
});

describe('CSV and Parquet', () => {
  it('give the same stored events as NDJSON, and the order of rows does not matter', async () => {
    const rows = generate(3, 1200);
    const nd = writeNdjson('three.ndjson', [...rows].reverse());
    // The same rows as CSV and Parquet, written by a separate DuckDB.
    const csv = join(t.dataDir, 'three.csv');
    const parquet = join(t.dataDir, 'three.parquet');
    const other = await (await DuckDBInstance.create(':memory:')).connect();
    const cols = `event_id, type, CAST(timestamp AS VARCHAR) AS timestamp, ad_id, ad_account_id, user_id, country, device, platform, CAST(cost_micros AS VARCHAR) AS cost_micros, event_name, value, currency`;
    await other.run(`COPY (SELECT ${cols} FROM read_json('${nd}', format = 'newline_delimited', columns = {event_id: 'VARCHAR', type: 'VARCHAR', timestamp: 'VARCHAR', ad_id: 'VARCHAR', ad_account_id: 'VARCHAR', user_id: 'VARCHAR', country: 'VARCHAR', device: 'VARCHAR', platform: 'VARCHAR', cost_micros: 'VARCHAR', event_name: 'VARCHAR', value: 'VARCHAR', currency: 'VARCHAR'})) TO '${csv}' (HEADER)`);
    await other.run(`COPY (SELECT * FROM read_csv('${csv}', header = true, all_varchar = true)) TO '${parquet}' (FORMAT parquet)`);
    other.closeSync();
    expect(await load(csv, { format: 'csv' })).toMatchObject({ rows_read: 1200, stored: 1200, quarantined: 0 });
    expect(await load(parquet, { format: 'parquet' })).toMatchObject({ rows_read: 1200, stored: 0, duplicates: 1200 });
    expect(await load(nd)).toMatchObject({ stored: 0, duplicates: 1200 });
    const stored = await t.store.all("SELECT event_id, type, ts_us, cost_micros FROM events WHERE event_id LIKE 's3-%' ORDER BY event_id");
    const expected = rows
      .map((e) => ({ event_id: e['event_id'], type: e['type'], ts_us: (typeof e['timestamp'] === 'number' ? e['timestamp'] : Date.parse(String(e['timestamp']))) * 1000, cost_micros: Number(e['cost_micros'] ?? 0) }))
      .sort((x, y) => (String(x.event_id) < String(y.event_id) ? -1 : 1));
    expect(stored).toEqual(expected);
  });

  it('take integer Parquet columns as the same values and reasons as their text', async () => {
    const ad = (accts[0] as Acct).ads[0] as string;
    const ms = NOW - DAY;
    // event id, timestamp (Unix ms), cost_micros, the reason expected (null: stored)
    const cases: [string, string, string | null, string | null][] = [
      ['pi1', `${ms}`, '7', null],
      ['pi2', `${ms + 1}`, null, null],
      ['pi3', `${ms + 2}`, '-5', 'invalid_value'],
      ['pi4', '10000000000000000', '1', 'invalid_value'],
      // Past what microseconds can hold (a BIGINT): a bad value, not a failed load.
      ['pi5', '9999999999999999', '1', 'invalid_value'],
      ['pi9', '9000000000000000', '1', 'future_timestamp'],
      ['pi6', '-1', '1', 'invalid_value'],
      ['pi7', `${ms + 3}`, '1000000000000000000', 'invalid_value'],
      ['pi8', `${ms + 4}`, '999999999999999999', null],
    ];
    const values = cases.map(([id, ts, cost]) => `('${id}', 'impression', '${ts}', '${ad}', ${cost === null ? 'NULL' : `'${cost}'`})`).join(', ');
    const other = await (await DuckDBInstance.create(':memory:')).connect();
    await other.run(`CREATE TABLE r AS SELECT * FROM (VALUES ${values}) v(event_id, type, timestamp, ad_id, cost_micros)`);
    const asInt = join(t.dataDir, 'ints.parquet');
    const asText = join(t.dataDir, 'texts.parquet');
    await other.run(`COPY (SELECT event_id, type, timestamp::BIGINT AS timestamp, ad_id, cost_micros::BIGINT AS cost_micros FROM r) TO '${asInt}' (FORMAT parquet)`);
    await other.run(`COPY r TO '${asText}' (FORMAT parquet)`);
    other.closeSync();
    const quarantine = async (run: string) => t.store.all('SELECT line_no, reason, raw FROM event_quarantine WHERE run_id = $run ORDER BY line_no', { run });
    const bad = cases.flatMap(([, , , reason], i) => (reason === null ? [] : [{ line_no: i + 1, reason }]));
    const good = cases.filter(([, , , reason]) => reason === null);
    expect(await load(asInt, { format: 'parquet', runId: 'run_ints' })).toMatchObject({ stored: good.length, quarantined: bad.length });
    expect((await quarantine('run_ints')).map(({ line_no, reason }) => ({ line_no, reason }))).toEqual(bad);
    expect(await t.store.all("SELECT event_id, ts_us, cost_micros::VARCHAR AS cost FROM events WHERE event_id LIKE 'pi%' ORDER BY event_id")).toEqual(
      good.map(([id, ts, cost]) => ({ event_id: id, ts_us: Number(ts) * 1000, cost: cost ?? '0' })),
    );
    // The same rows as text: the same reasons and quarantined text, and the valid ones are the events just stored.
    expect(await load(asText, { format: 'parquet', runId: 'run_texts' })).toMatchObject({ stored: 0, duplicates: good.length, quarantined: bad.length });
    expect(await quarantine('run_texts')).toEqual(await quarantine('run_ints'));
  });
});

describe('malformed CSV rows', () => {
  it('are quarantined with their line, and the rows after them keep theirs', async () => {
    const [a] = accts as [Acct];
    const path = join(t.dataDir, 'malformed.csv');
    const ok = (id: string) => `${id},impression,${NOW},${a.ads[0]},7`;
    writeFileSync(path, ['event_id,type,timestamp,ad_id,cost_micros', ok('m1'), 'm2,impression,too,many,fields,here', ok('m3'), `m4,impression,${NOW},ad_nope,1`, ok('m5')].join('\n') + '\n');
    const summary = await load(path, { format: 'csv', runId: 'run_malformed' });
    expect(summary).toMatchObject({ rows_read: 5, stored: 3, quarantined: 2, quarantined_by_reason: { malformed_row: 1, unknown_ad: 1 } });
    const q = await t.store.all("SELECT line_no, reason, detail FROM event_quarantine WHERE run_id = 'run_malformed' ORDER BY line_no");
    expect(q).toEqual([
      // The reader's own words on the row.
      { line_no: 3, reason: 'malformed_row', detail: 'the CSV reader: Expected Number of Columns: 5 Found: 6' },
      { line_no: 5, reason: 'unknown_ad', detail: 'ad_id names no ad' },
    ]);
  });

  // Every line the header, a record or a rejected row (numbered from the rejects), or not (numbered from the file's lines).
  it.each([
    ['rejected rows only', false, false],
    ['blank lines too', true, false],
    ['a quoted field across lines too', false, true],
  ])('keep every line number with %s', async (name, blanks, multiline) => {
    const [a] = accts as [Acct];
    // Ids of their own per case: another case's events would be duplicates here.
    const p = `${blanks ? 'b' : ''}${multiline ? 'm' : ''}`;
    const ok = (id: string, ad = a.ads[0]) => `${p}${id},impression,${NOW},${ad},7`;
    const bad = (id: string) => `${p}${id},impression,too,many,fields,here`;
    const lines = ['event_id,type,timestamp,ad_id,cost_micros'];
    const expected: { line_no: number; reason: string }[] = [];
    const stored: string[] = [];
    const r = rng(name.length);
    lines.push(bad('x0'));
    expected.push({ line_no: 2, reason: 'malformed_row' });
    for (let i = 1; i < 400; i++) {
      const x = r();
      if (x < 0.08) {
        lines.push(bad(`x${i}`));
        expected.push({ line_no: lines.length, reason: 'malformed_row' });
      } else if (x < 0.12) {
        lines.push(ok(`x${i}`, 'ad_nope'));
        expected.push({ line_no: lines.length, reason: 'unknown_ad' });
      } else if (blanks && x < 0.15) {
        lines.push('');
      } else if (multiline && x < 0.15) {
        // A quoted event id with line breaks (a blank line, escaped quotes): one record over several lines, numbered by its first.
        const first = lines.length + 1;
        if (x < 0.135) lines.push(`"${p}x${i}`, `y",impression,${NOW},ad_nope,7`);
        else lines.push(`"${p}x${i} ""quoted""`, '', `y",impression,${NOW},ad_nope,7`);
        expected.push({ line_no: first, reason: 'unknown_ad' });
      } else if (multiline && x < 0.17) {
        const first = lines.length + 1;
        lines.push(`"${p}x${i}`, `y",impression,too,many,fields,here`);
        expected.push({ line_no: first, reason: 'malformed_row' });
      } else {
        lines.push(ok(`x${i}`));
        stored.push(`${p}x${i}`);
      }
    }
    lines.push(bad('x400'));
    expected.push({ line_no: lines.length, reason: 'malformed_row' });
    const path = join(t.dataDir, `lines-${blanks}-${multiline}.csv`);
    writeFileSync(path, lines.join('\n') + '\n');
    const run = `run_lines_${blanks}_${multiline}`;
    const summary = await load(path, { format: 'csv', runId: run });
    expect(summary).toMatchObject({ stored: stored.length, quarantined: expected.length });
    expect(await t.store.all('SELECT line_no, reason FROM event_quarantine WHERE run_id = $run ORDER BY line_no', { run })).toEqual(expected);
    const ids = await t.store.all('SELECT event_id FROM events WHERE run_id = $run ORDER BY event_id', { run });
    expect(ids.map((x) => x['event_id'])).toEqual([...stored].sort());
  });
});

describe('files larger than one read buffer', () => {
  // DuckDB reads a text file in parallel, buffer by buffer (some 30 MB each); rows are numbered by their place in the
  // staged copy (stage-sql.ts), so these files span several buffers and their bad rows must still name their own lines.
  it.each(['ndjson', 'csv'] as const)('keep every line number exact in %s', async (format) => {
    const [a] = accts as [Acct];
    const r = rng(format.length * 7);
    const pad = 'p'.repeat(900);
    const n = 100_000;
    const lines: string[] = format === 'csv' ? ['event_id,type,timestamp,ad_id,cost_micros,note'] : [];
    const expected: { line_no: number; reason: string }[] = [];
    for (let i = 0; i < n; i++) {
      // One row in about 2,000 has an unknown ad, so every buffer holds a few.
      const ad = r() < 0.0005 ? 'ad_nope' : a.ads[i % 3];
      const id = `big-${format}-${i}`;
      lines.push(format === 'csv' ? `${id},impression,${NOW - DAY},${ad},7,${pad}` : JSON.stringify({ event_id: id, type: 'impression', timestamp: NOW - DAY, ad_id: ad, cost_micros: 7, note: pad }));
      if (ad === 'ad_nope') expected.push({ line_no: lines.length, reason: 'unknown_ad' });
    }
    const path = join(t.dataDir, `big.${format}`);
    writeFileSync(path, lines.join('\n') + '\n');
    const run = `run_big_${format}`;
    const summary = await load(path, { format, runId: run });
    expect(expected.length).toBeGreaterThan(20);
    expect(summary).toMatchObject({ rows_read: n, stored: n - expected.length, quarantined: expected.length });
    expect(await t.store.all('SELECT line_no, reason FROM event_quarantine WHERE run_id = $run ORDER BY line_no', { run })).toEqual(expected);
  });
});
