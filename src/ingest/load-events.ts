import { z } from 'zod';
import type { Clock } from '../clock.js';
import { randomToken } from '../ids.js';
import { sqlList, type Queryable, type Row, type Store, type WriterSession } from '../store/store.js';
import { DEVICES, EVENT_FIELDS, INGEST_CHUNK_LINES, EVENT_TYPES, MAX_FUTURE_US, MIN_EVENT_TIME_US, PLATFORMS, QUARANTINE_REASONS, typeSql, type EventFileFormat, type QuarantineReason } from './event-contract.js';
import { attributionTables, refreshAttribution, stageAttribution } from './attribution.js';
import { calendarTables, insertCalendarRollups, stageCalendarRollups } from './calendar-rollups.js';
import { withEntityIds } from './rollup-rows.js';
import { batchParts, batchStage, csvLinesHold, csvMalformed, csvRenumbered, csvShifts, fileRows, fileStage, FIRST_LINE, INTEGER_FIELDS, PARQUET_COLUMNS, stageLeftovers } from './stage-sql.js';

/**
 * Loads one event file: read it with DuckDB's reader and check every row in
 * SQL, find the valid events not stored before (dedup by anti-join on account
 * and event id), and sum what the derived tables need, all as scratch; then,
 * in one write transaction, quarantine the bad rows with their line and
 * reason, store the new events, and refresh rollups, attribution and billable
 * spend for what they touched. All of the writes commit or none do, so a file
 * loaded again after a crash changes nothing twice.
 */
export interface LoadRequest {
  runId: string;
  path: string;
  format: EventFileFormat;
  /** The name the quarantine records the rows under (the file name, or `request`). */
  source: string;
  /** Events must belong to this account (a key's account, `ingest --account`); null: any account. */
  scopeAccountId: string | null;
  /**
   * Further NDJSON files loaded after this one as one batch, in one
   * transaction, each for its own run (small `POST /events` batches that
   * queued up together): each part's quarantined rows, counts and stored
   * events are its own, numbered from its own first line, exactly as if the
   * parts were loaded one after another.
   */
  more?: readonly LoadPart[];
}

/** One file of a batch load and the run it belongs to. */
export interface LoadPart {
  runId: string;
  path: string;
  source: string;
}

export interface LoadSummary {
  rows_read: number;
  stored: number;
  duplicates: number;
  quarantined: number;
  quarantined_by_reason: Partial<Record<QuarantineReason, number>>;
}

/** A row a check-only load would quarantine: its line (an event's place in a request batch, from 1), reason, what is wrong, and text. */
export interface CheckedIssue {
  line_no: number;
  reason: QuarantineReason;
  detail: string | null;
  raw: string | null;
}

const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** A quarantined row as read back (a checked row, or one of `event_quarantine`): line, reason, detail and text. */
export const issueOf = (r: Row): CheckedIssue => ({
  line_no: Number(r['line_no']),
  reason: z.enum(QUARANTINE_REASONS).parse(r['reason']),
  detail: textOrNull(r['detail']),
  raw: textOrNull(r['raw']),
});

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');
const IS_IMPRESSION_OR_CLICK = `s.type IN ('impression', 'click')`;

/** The largest Unix milliseconds whose microseconds fit a BIGINT (year 294247): beyond it, a timestamp is an invalid value. */
const MAX_MS = 9_223_372_036_854_775n;

/** Unix milliseconds (BIGINT) to microseconds, or NULL where those would not fit a BIGINT. */
const tsUsOfInteger = (ms: string) => `CASE WHEN ${ms} BETWEEN -${MAX_MS} AND ${MAX_MS} THEN ${ms} * 1000 END`;

/** Text to a timestamp in microseconds: integer Unix milliseconds, or ISO 8601 with an offset or Z. */
const tsUs = (col: string) => `CASE
  WHEN regexp_full_match(${col}, '-?[0-9]{1,16}') THEN ${tsUsOfInteger(`TRY_CAST(${col} AS BIGINT)`)}
  WHEN regexp_full_match(${col}, '[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]{1,9})?)?([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)')
    THEN epoch_us(TRY_CAST(${col} AS TIMESTAMPTZ))
END`;

/**
 * The rules a staged row must keep (EVENTS.md, Fields), in the order they are
 * judged: the first one it breaks gives its reason, and what the rule says of
 * the row (the quarantine's `detail`). Details are fixed text, never the row's.
 */
const RULES: readonly { when: string; reason: QuarantineReason; detail: string }[] = [
  { when: 's.event_id IS NULL', reason: 'missing_field', detail: 'event_id is required' },
  { when: 's.type IS NULL', reason: 'missing_field', detail: 'type is required' },
  { when: 's.timestamp IS NULL', reason: 'missing_field', detail: 'timestamp is required' },
  { when: 's.wrong_type', reason: 'invalid_value', detail: 'a field is an object, array or boolean; fields are strings or numbers' },
  { when: 'length(s.event_id) NOT BETWEEN 1 AND 128', reason: 'invalid_value', detail: 'event_id must be 1 to 128 characters' },
  { when: `s.type NOT IN (${list(EVENT_TYPES)})`, reason: 'invalid_value', detail: `type must be one of ${EVENT_TYPES.join(', ')}` },
  { when: 's.ts_us IS NULL', reason: 'invalid_value', detail: 'timestamp must be Unix milliseconds or ISO 8601 with an offset or Z' },
  { when: `s.ts_us < ${MIN_EVENT_TIME_US}`, reason: 'invalid_value', detail: 'timestamp is before 2000-01-01T00:00:00Z' },
  { when: `s.ts_us > $now_us + ${MAX_FUTURE_US}`, reason: 'future_timestamp', detail: 'timestamp is more than 10 minutes after the load' },
  { when: `${IS_IMPRESSION_OR_CLICK} AND s.ad_id IS NULL`, reason: 'missing_field', detail: 'ad_id is required for impressions and clicks' },
  { when: `s.type IN ('click', 'conversion') AND s.user_id IS NULL`, reason: 'missing_field', detail: 'user_id is required for clicks and conversions' },
  { when: `s.type = 'conversion' AND s.account IS NULL`, reason: 'missing_field', detail: 'ad_account_id is required for conversions' },
  { when: `s.type = 'conversion' AND s.event_name IS NULL`, reason: 'missing_field', detail: 'event_name is required for conversions' },
  { when: 's.user_id IS NOT NULL AND length(s.user_id) NOT BETWEEN 1 AND 256', reason: 'invalid_value', detail: 'user_id must be 1 to 256 characters' },
  { when: 's.event_name IS NOT NULL AND length(s.event_name) NOT BETWEEN 1 AND 256', reason: 'invalid_value', detail: 'event_name must be 1 to 256 characters' },
  { when: `s.country IS NOT NULL AND NOT regexp_full_match(s.country, '[A-Z]{2}')`, reason: 'invalid_value', detail: 'country must be an upper-case ISO 3166-1 alpha-2 code' },
  { when: `s.device IS NOT NULL AND s.device NOT IN (${list(DEVICES)})`, reason: 'invalid_value', detail: `device must be one of ${DEVICES.join(', ')}` },
  { when: `s.platform IS NOT NULL AND s.platform NOT IN (${list(PLATFORMS)})`, reason: 'invalid_value', detail: `platform must be one of ${PLATFORMS.join(', ')}` },
  { when: '(s.product_feed_id IS NULL) <> (s.product_item_id IS NULL)', reason: 'invalid_value', detail: 'product_feed_id and product_item_id go together' },
  { when: `s.type = 'conversion' AND s.cost_micros IS NOT NULL`, reason: 'invalid_value', detail: 'cost_micros is not allowed on conversions' },
  { when: 's.cost IS NULL', reason: 'invalid_value', detail: 'cost_micros must be an integer from 0' },
  { when: `s.value IS NOT NULL AND s.type <> 'conversion'`, reason: 'invalid_value', detail: 'value is for conversions only' },
  { when: 's.value IS NOT NULL AND s.amount IS NULL', reason: 'invalid_value', detail: 'value must be a decimal number from 0' },
  { when: 's.currency IS NOT NULL AND s.value IS NULL', reason: 'invalid_value', detail: 'currency goes with a value' },
  { when: 's.value IS NOT NULL AND s.currency IS NULL', reason: 'missing_field', detail: 'currency is required with a value' },
  { when: `${IS_IMPRESSION_OR_CLICK} AND s.ad_account IS NULL`, reason: 'unknown_ad', detail: 'ad_id names no ad' },
  { when: `${IS_IMPRESSION_OR_CLICK} AND $scope IS NOT NULL AND s.ad_account <> $scope`, reason: 'unknown_ad', detail: "ad_id names no ad of this run's account" },
  { when: `${IS_IMPRESSION_OR_CLICK} AND s.ad_account_id IS NOT NULL AND s.ad_account_id <> s.ad_account`, reason: 'account_mismatch', detail: "ad_account_id is not the ad's account" },
  { when: `s.type = 'conversion' AND $scope IS NOT NULL AND s.account <> $scope`, reason: 'account_mismatch', detail: "ad_account_id is not this run's account" },
  { when: 's.account_currency IS NULL', reason: 'unknown_account', detail: 'ad_account_id names no ad account' },
  { when: 's.currency IS NOT NULL AND s.currency <> s.account_currency', reason: 'currency_mismatch', detail: "currency is not the account's currency" },
];

/** A CASE over a staged row `s`: per rule, `pick` of it for the first rule the row breaks (a line that is no JSON object: `parsed`), else NULL. */
const judge = (parsed: string, pick: (rule: (typeof RULES)[number]) => string) =>
  `CASE\n  WHEN s.parse_error IS NOT NULL THEN ${parsed}\n${RULES.map((r) => `  WHEN ${r.when} THEN ${pick(r)}`).join('\n')}\nEND`;
/** The first rule a staged row breaks, or NULL when it keeps them all. */
const REASON = judge('s.parse_error', (r) => `'${r.reason}'`);
/** What that rule says of the row (only worked out for quarantined rows). */
const DETAIL = judge(`'the line is not a JSON object'`, (r) => `'${r.detail.replaceAll("'", "''")}'`);

/** Phase times on stderr with ADSVC_INGEST_TRACE=1. */
function tracer(label: string): (phase: string) => void {
  if (process.env['ADSVC_INGEST_TRACE'] !== '1') return () => undefined;
  let last = performance.now();
  return (phase) => {
    const now = performance.now();
    process.stderr.write(`ingest ${label} ${phase}: ${(now - last).toFixed(0)} ms\n`);
    last = now;
  };
}

const Counts = z.object({ rows_read: z.number(), valid: z.number(), stored: z.number(), quarantined: z.number() });

/** The file's own column names (the CSV header line, or the Parquet schema), and the contract fields it holds as integers (Parquet). */
async function fileColumns(db: Queryable, req: LoadRequest): Promise<{ names: string[]; integers: string[] }> {
  if (req.format === 'ndjson') return { names: [...EVENT_FIELDS], integers: [] };
  if (req.format === 'parquet') {
    const rows = await db.all(PARQUET_COLUMNS, { path: req.path });
    const names = rows.map((r) => String(r['column_name']));
    const integers = rows.filter((r) => r['integer'] === true).map((r) => String(r['column_name']));
    return { names, integers: INTEGER_FIELDS.filter((f) => integers.includes(f)) };
  }
  const header = String((await db.get(FIRST_LINE, { path: req.path }))?.['line'] ?? '');
  return { names: header.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1').replace(/^\uFEFF/, '')), integers: [] };
}

/**
 * A checked row's field of few values, as the store's ENUM of them
 * (0013_event_columns.sql): a byte instead of a string. The checked rows of a
 * 10M-event file spilled 1.4 GB past a 1GB memory limit as text, 0.7 GB so,
 * and every later scan of them reads less back. NULL for a quarantined row,
 * whose value may be none of them.
 */
const asEnum = (field: string, type: string) => `(CASE WHEN reason IS NULL THEN ${field} END)::${type} AS ${field}`;

/**
 * Typed fields, the owning account (from the ad for impressions and clicks),
 * and the reason, in one streaming pass over `rows`.
 */
const checkedSql = (rows: string, integers: readonly string[]) => `
  WITH st AS (${rows}), typed AS (
    SELECT st.*, ${integers.includes('timestamp') ? tsUsOfInteger('st.timestamp') : tsUs('st.timestamp')} AS ts_us,
      CASE WHEN st.cost_micros IS NULL THEN 0
        WHEN ${integers.includes('cost_micros') ? 'st.cost_micros BETWEEN 0 AND 999999999999999999' : `regexp_full_match(st.cost_micros, '[0-9]{1,18}')`} THEN st.cost_micros::BIGINT END AS cost,
      CASE WHEN regexp_full_match(st.value, '[0-9]{1,29}([.][0-9]{1,9})?') THEN st.value::DECIMAL(38, 9) END AS amount,
      ad.ad_account_id AS ad_account,
      CASE WHEN st.type IN ('impression', 'click') THEN ad.ad_account_id ELSE coalesce(st.ad_account_id, $scope) END AS account
    FROM st LEFT JOIN ads ad ON ad.id = st.ad_id
  ), owned AS (
    SELECT t.*, acct.currency_code AS account_currency FROM typed t LEFT JOIN ad_accounts acct ON acct.id = t.account
  ), judged AS (
    SELECT s.*, ${REASON} AS reason FROM owned s
  )
  -- Only a quarantined row keeps its text (the line, or its fields as JSON) and what is wrong with it; only a valid one its typed fields.
  SELECT line_no, reason, CASE WHEN reason IS NOT NULL THEN coalesce(raw, to_json({${EVENT_FIELDS.map((f) => `'${f}': "${f}"::VARCHAR`).join(', ')}})::VARCHAR) END AS raw,
    CASE WHEN reason IS NOT NULL THEN ${DETAIL} END AS detail,
    account, event_id, ${asEnum('type', 'event_type')}, ts_us, ad_id, user_id,
    ${asEnum('country', 'country_code')}, ${asEnum('device', 'event_device')}, ${asEnum('platform', 'event_platform')},
    product_feed_id, product_item_id, cost, event_name, amount, currency
  FROM judged s`;

/** Where a file's load stands after a committed chunk. */
export interface LoadProgress {
  /** The last line number the committed chunks cover. */
  linesDone: number;
  /** Whether every line of the file is loaded. */
  done: boolean;
}

/** A batch part's counts, and how many lines it has. */
export interface PartSummary extends LoadPart {
  lines: number;
  summary: LoadSummary;
}

export async function loadEventFile(
  deps: { store: Store; clock: Clock },
  req: LoadRequest,
  options: {
    /**
     * Runs inside each chunk's transaction, so bookkeeping commits with the
     * data: the file's counts so far, and where it stands; for a batch
     * (`req.more`, always one chunk), each part's counts and line count too.
     */
    beforeCommit?: (tx: Queryable, summary: LoadSummary, progress: LoadProgress, parts: readonly PartSummary[]) => Promise<void>;
    /** Check only: report what would happen, with the first `issues` rows it would quarantine, and store nothing. */
    dryRun?: { issues: number };
    /** Lines per chunk transaction (default INGEST_CHUNK_LINES). */
    chunkLines?: number;
    /** An earlier attempt committed the lines up to `linesDone`, with these counts: go on after them. */
    resume?: { linesDone: number; summary: LoadSummary };
  } = {},
): Promise<LoadSummary & { issues?: CheckedIssue[] }> {
  const nowUs = deps.clock.nowMs() * 1000;
  const tag = randomToken(8);
  const [stage, checked, skipped, partsTable] = [`stage_${tag}`, `checked_${tag}`, `skipped_${tag}`, `parts_${tag}`];
  const scratch = [stage, checked, skipped, partsTable, ...dedupTables(tag), ...stageLeftovers(tag)];
  const parts: LoadPart[] = [{ runId: req.runId, path: req.path, source: req.source }, ...(req.more ?? [])];
  const batch = parts.length > 1;
  if (batch && (req.format !== 'ndjson' || options.resume !== undefined || options.dryRun !== undefined)) {
    throw new Error('a batch load takes NDJSON files from their start, and stores them');
  }
  const chunkLines = options.chunkLines ?? INGEST_CHUNK_LINES;
  return deps.store.writerSession(async (session) => {
    const mark = tracer(req.source);
    try {
      // Everything up to the writes is scratch in temp tables, made before the
      // load's transactions (Store.writerSession says why): the session holds
      // the only writer, so what it reads of the stored data is what each
      // transaction starts from, and nothing is stored unless that commits.
      const { names: columns, integers } = await fileColumns(session, req);
      const judge = { scope: req.scopeAccountId, now_us: nowUs };
      // Checked rows from the file: only text lines or records are staged first (numbered in file order).
      const stageFile = batch ? batchStage(tag) : fileStage(req.format, columns, tag);
      if (stageFile !== null) await session.run(stageFile, batch ? { paths: sqlList(parts.map((p) => p.path)) } : { path: req.path });
      // Each part's lines in the batch's numbering (one part: all of them); rows are attributed to parts by these ranges.
      const ranges = await partRanges(session, parts, batch, tag);
      await session.run(`CREATE TEMP TABLE ${partsTable} (run_id VARCHAR, source VARCHAR, first_line BIGINT, last_line BIGINT)`);
      // A part without lines has no range (none of its rows can be found by the ASOF join of the insert).
      for (const r of ranges.filter((x) => x.last >= x.first)) await session.run(`INSERT INTO ${partsTable} VALUES ($run, $source, $first, $last)`, { run: r.runId, source: r.source, first: r.first, last: r.last });
      // CSV: records numbered from the rejected lines when the file's lines allow it (stage-sql.ts, csvRows).
      let csvShifted = false;
      if (req.format === 'csv') {
        const records = Number((await session.get(`SELECT count(*) AS n FROM src_${tag}`))?.['n']);
        csvShifted = (await session.get(csvLinesHold(tag), { path: req.path, records }))?.['holds'] === true;
        if (csvShifted) await session.run(csvShifts(tag), { records });
      }
      await session.run(`CREATE TEMP TABLE ${checked} AS ${checkedSql(fileRows(req.format, columns, tag, csvShifted, integers), integers)}`, stageFile === null ? { ...judge, path: req.path } : judge);
      if (req.format === 'csv' && csvShifted) {
        await session.run(`INSERT INTO ${checked} BY NAME ${csvMalformed(tag)}`);
      } else if (req.format === 'csv') {
        // Blank lines or records across lines: number records by the lines left, and add the rejected ones.
        await session.run(`CREATE TEMP TABLE ${stage} AS ${csvRenumbered(checked, tag)} ORDER BY line_no`, { path: req.path });
        await session.run(`DROP TABLE ${checked}`);
        await session.run(`ALTER TABLE ${stage} RENAME TO ${checked}`);
      }
      await session.run(`DROP TABLE IF EXISTS src_${tag}`);
      mark('read and check');
      // Stored by this load: the first valid occurrence in the file of an
      // (account, event id), if not stored before (dedupSkipped).
      await dedupSkipped(session, checked, skipped, tag);
      mark('dedup');
      const lastLine = Number((await session.get(`SELECT coalesce(max(line_no), 0) AS n FROM ${checked}`))?.['n']);
      // A check only: the counts, and nothing is stored.
      if (options.dryRun !== undefined) {
        const summary = await summarize(session, checked, skipped, 0, lastLine);
        const rows = await session.all(`SELECT line_no, reason, detail, raw FROM ${checked} WHERE reason IS NOT NULL ORDER BY line_no LIMIT $n`, { n: options.dryRun.issues });
        return { ...summary, issues: rows.map(issueOf) };
      }
      let summary = options.resume?.summary ?? emptySummary();
      let from = options.resume?.linesDone ?? 0;
      do {
        // A batch commits whole: its parts are done together, or none is.
        const to = batch ? lastLine : Math.max(from, Math.min(from + chunkLines, lastLine));
        summary = addSummaries(summary, await summarize(session, checked, skipped, from, to));
        const partSummaries: PartSummary[] = [];
        if (batch) for (const r of ranges) partSummaries.push({ runId: r.runId, path: r.path, source: r.source, lines: r.last - r.first + 1, summary: await summarize(session, checked, skipped, r.first - 1, r.last) });
        await loadChunk(deps, session, { req, tag: `${tag}_${from}`, checked, skipped, parts: partsTable, batch, from, to, nowUs, mark }, async (tx) => {
          await options.beforeCommit?.(tx, summary, { linesDone: to, done: to >= lastLine }, partSummaries);
        });
        from = to;
      } while (from < lastLine);
      return summary;
    } finally {
      for (const t of scratch) await session.run(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
    }
  });
}

/** An event's key hash (events.key_hash), from its account column and its event id. */
export const keyHash = (account: string) => `hash(${account}, event_id)`;
/** The hash of a fixed key: event_key_hash keeps it as it was when events.key_hash was filled (0013_event_columns.sql). */
const KEY_HASH_PROBE = `hash('adsvc', 'key hash probe')`;

/**
 * Stored key hashes are made by DuckDB's hash(), which a DuckDB upgrade may
 * change: if the fixed key no longer hashes as it did (or has no hash yet:
 * the first load after migration 0013), every stored event's hash is made
 * before dedup relies on them (a few seconds for 50M events).
 */
async function currentKeyHashes(session: WriterSession): Promise<void> {
  const same = (await session.get(`SELECT bool_and(probe = ${KEY_HASH_PROBE}) AS same FROM event_key_hash`))?.['same'] === true;
  if (same) return;
  await session.transaction(async (tx) => {
    await tx.run(`UPDATE events SET key_hash = ${keyHash('ad_account_id')}`);
    await tx.run('DELETE FROM event_key_hash');
    await tx.run(`INSERT INTO event_key_hash VALUES (${KEY_HASH_PROBE})`);
  });
}

/** The scratch tables of one load's dedup (`tag` names them). */
const dedupTables = (tag: string) => [`keys_${tag}`, `hashes_${tag}`, `hits_${tag}`, `rep_${tag}`] as const;

/**
 * Lists in `skipped` the valid checked rows a load will not store: a later
 * occurrence in the file of an (account, event id), or one stored before.
 * The load lists those (usually few) so picking its new rows is an anti
 * join against a small table. Keys are matched on a 64-bit hash first (an
 * integer join; stored events keep theirs in key_hash), and only rows whose
 * hash repeats in the file or matches a stored event's are compared on the
 * key strings. Each step is a table of its own, so the planner knows each
 * join's small side: as one statement, the check against the (usually no)
 * stored matches built its hash table on every row of the file, key strings
 * and all (2.7 of 9.3 s for 10M events into a store of 50M).
 *
 * This is decided once for the whole file: chunks commit in line order and
 * nothing else writes in between, so a chunk stores exactly the rows an
 * undivided load would. After a crash, rows an earlier attempt stored count
 * as stored before, but they all lie in the lines it covered, which are not
 * loaded again.
 */
async function dedupSkipped(q: WriterSession, checked: string, skipped: string, tag: string): Promise<void> {
  const [keys, hashes, hits, rep] = dedupTables(tag);
  await currentKeyHashes(q);
  await q.run(`CREATE TEMP TABLE ${keys} AS SELECT line_no, ${keyHash('account')} AS h FROM ${checked} WHERE reason IS NULL`);
  // Stored events whose key hashes like one of the file's, with their keys (usually none). The hashes are
  // found first, reading only that column: asked for the keys at once, DuckDB read the key strings of every
  // stored event before the join dropped them (10k new events into a store of 50M: 0.6 s, against 0.25 s
  // for the hashes alone). The keys of the few matches are read in a second pass, only when there are any.
  await q.run(`CREATE TEMP TABLE ${hashes} AS SELECT DISTINCT key_hash AS h FROM events WHERE key_hash IN (SELECT h FROM ${keys})`);
  const matched = Number((await q.get(`SELECT count(*) AS n FROM ${hashes}`))?.['n']) > 0;
  await q.run(`CREATE TEMP TABLE ${hits} AS SELECT ad_account_id, event_id, key_hash AS h FROM events WHERE ${matched ? `key_hash IN (SELECT h FROM ${hashes})` : 'false'}`);
  // The file's rows whose key may be seen twice: its hash repeats in the file, or a stored event has it.
  await q.run(
    `CREATE TEMP TABLE ${rep} AS
     SELECT k.line_no, c.account, c.event_id
     FROM ${keys} k JOIN (SELECT h FROM ${keys} GROUP BY h HAVING count(*) > 1 UNION SELECT h FROM ${hits}) r USING (h)
       JOIN ${checked} c USING (line_no)`,
  );
  await q.run(
    `CREATE TEMP TABLE ${skipped} AS
     SELECT line_no FROM ${rep}
     QUALIFY row_number() OVER (PARTITION BY account, event_id ORDER BY line_no) > 1
     UNION
     SELECT r.line_no FROM ${rep} r SEMI JOIN ${hits} s ON s.ad_account_id = r.account AND s.event_id = r.event_id`,
  );
  for (const t of [keys, hashes, hits, rep]) await q.run(`DROP TABLE ${t}`);
}

/** A part's lines in the numbering of its load: one part has them all; a batch's come from its staged lines (`batchParts`). */
async function partRanges(q: Queryable, parts: readonly LoadPart[], batch: boolean, tag: string): Promise<(LoadPart & { first: number; last: number })[]> {
  if (!batch) return parts.map((p) => ({ ...p, first: 1, last: Number.MAX_SAFE_INTEGER }));
  const found = new Map((await q.all(batchParts(tag))).map((r) => [String(r['filename']), { first: Number(r['first_line']), last: Number(r['last_line']) }]));
  const out: (LoadPart & { first: number; last: number })[] = [];
  let next = 1;
  for (const p of parts) {
    // A file without lines has the empty range where it would begin.
    const range = found.get(p.path) ?? { first: next, last: next - 1 };
    if (range.first !== next) throw new Error(`batch part ${p.path} was staged out of order`);
    out.push({ ...p, ...range });
    next = range.last + 1;
  }
  return out;
}

/**
 * One chunk of a file, the lines in (from, to]: the new events' rollup,
 * calendar and attribution scratch first, then one write transaction that
 * quarantines the chunk's bad rows, stores its new events and refreshes the
 * derived tables for what they touched.
 */
async function loadChunk(
  deps: { clock: Clock },
  session: WriterSession,
  c: { req: LoadRequest; tag: string; checked: string; skipped: string; parts: string; batch: boolean; from: number; to: number; nowUs: number; mark: (phase: string) => void },
  beforeCommit: (tx: Queryable) => Promise<void>,
): Promise<void> {
  const [rolled, touched] = [`rolled_${c.tag}`, `touched_${c.tag}`];
  const scratch = [rolled, `${rolled}_narrow`, touched, ...calendarTables(c.tag), ...attributionTables(c.tag)];
  const lines = `c.line_no > ${c.from} AND c.line_no <= ${c.to}`;
  try {
    // The chunk's new events as the insert and the refreshes read them: its valid checked rows less the few skipped.
    const added = `(SELECT c.* FROM ${c.checked} c ANTI JOIN ${c.skipped} USING (line_no) WHERE c.reason IS NULL AND ${lines})`;
    await stageRollups(session, added, rolled, touched);
    c.mark('stage rollups');
    const backfill = await stageCalendarRollups(session, touched, rolled, c.tag);
    c.mark('stage calendar rollups');
    await stageAttribution(session, added, c.tag, c.mark);
    c.mark('stage attribution');
    await session.transaction(async (tx) => {
      // Each row under its part's run and source, numbered from the part's first line.
      await tx.run(
        `INSERT INTO event_quarantine (run_id, source, line_no, reason, raw, quarantined_at_us, detail)
         SELECT p.run_id, p.source, c.line_no - p.first_line + 1, c.reason, c.raw, $now_us, c.detail
         FROM ${c.checked} c JOIN ${c.parts} p ON c.line_no BETWEEN p.first_line AND p.last_line
         WHERE c.reason IS NOT NULL AND ${lines}`,
        { now_us: c.nowUs },
      );
      c.mark('quarantine');
      // A batch's events are stored under their part's run (the part whose lines hold them); a single file's
      // skip the join, since it may hold millions of rows and has one run.
      await tx.run(
        `INSERT INTO events
         SELECT a.account, a.event_id, a.type, a.ts_us, a.ad_id, a.user_id, a.country, a.device, a.platform,
           a.product_feed_id, a.product_item_id, a.cost, a.event_name, a.amount, a.currency, ${c.batch ? 'p.run_id' : '$run'}, $now_us, ${keyHash('a.account')}
         FROM ${added} a ${c.batch ? `ASOF JOIN ${c.parts} p ON a.line_no >= p.first_line` : ''}`,
        c.batch ? { now_us: c.nowUs } : { run: c.req.runId, now_us: c.nowUs },
      );
      c.mark('insert');
      // This chunk's place in the data's history (snapshot reads, 0009_data_versions.sql).
      const seq = Number((await tx.get(`SELECT nextval('data_load_seq') AS s`))?.['s']);
      await tx.run('INSERT INTO data_loads VALUES ($seq, $run, $now_ms)', { seq, run: c.req.runId, now_ms: deps.clock.nowMs() });
      await insertRollups(tx, rolled, seq);
      c.mark('rollups');
      await insertCalendarRollups(tx, touched, c.tag, seq, backfill);
      c.mark('calendar rollups');
      await refreshAttribution(tx, c.tag, seq);
      c.mark('attribution');
      await refreshDailySpend(tx, touched, deps.clock.nowMs());
      c.mark('spend');
      await beforeCommit(tx);
    });
  } finally {
    for (const t of scratch) await session.run(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
  }
}

const emptySummary = (): LoadSummary => ({ rows_read: 0, stored: 0, duplicates: 0, quarantined: 0, quarantined_by_reason: {} });

function addSummaries(a: LoadSummary, b: LoadSummary): LoadSummary {
  const byReason: LoadSummary['quarantined_by_reason'] = { ...a.quarantined_by_reason };
  for (const [reason, n] of Object.entries(b.quarantined_by_reason) as [QuarantineReason, number][]) byReason[reason] = (byReason[reason] ?? 0) + n;
  return {
    rows_read: a.rows_read + b.rows_read,
    stored: a.stored + b.stored,
    duplicates: a.duplicates + b.duplicates,
    quarantined: a.quarantined + b.quarantined,
    quarantined_by_reason: byReason,
  };
}

/** The counts of the lines in (from, to], from the checked rows and the skipped ones. */
async function summarize(q: Queryable, checked: string, skipped: string, from: number, to: number): Promise<LoadSummary> {
  const range = { from, to };
  const counts = Counts.parse(
    await q.get(
      `SELECT count(*) AS rows_read, count(*) FILTER (WHERE reason IS NULL) AS valid,
         count(*) FILTER (WHERE reason IS NULL) - (SELECT count(*) FROM ${skipped} WHERE line_no > $from AND line_no <= $to) AS stored,
         count(*) FILTER (WHERE reason IS NOT NULL) AS quarantined FROM ${checked} WHERE line_no > $from AND line_no <= $to`,
      range,
    ),
  );
  const byReason: LoadSummary['quarantined_by_reason'] = {};
  for (const r of await q.all(`SELECT reason, count(*) AS n FROM ${checked} WHERE reason IS NOT NULL AND line_no > $from AND line_no <= $to GROUP BY reason`, range)) {
    const reason = z.enum(QUARANTINE_REASONS).parse(r['reason']);
    byReason[reason] = Number(r['n']);
  }
  return {
    rows_read: counts.rows_read,
    stored: counts.stored,
    duplicates: counts.valid - counts.stored,
    quarantined: counts.quarantined,
    quarantined_by_reason: byReason,
  };
}

const BUCKET_US = 900_000_000;

/** Each segment's rollup rows, in the order they are written: name, value, feed and item columns, grouping keys ('none' is staged from the device rows, stageRollups). */
const SEGMENT_ROLLUPS = [
  ['none', 'NULL', 'NULL', 'NULL', ''],
  ['country', 'country', 'NULL', 'NULL', ', country'],
  ['device', 'device', 'NULL', 'NULL', ', device'],
  ['platform', 'platform', 'NULL', 'NULL', ', platform'],
  ['product', 'NULL', 'product_feed_id', 'product_item_id', ', product_feed_id, product_item_id'],
] as const;

/** Sums the new events per rollup row into `rolled` (scratch, before the transaction; keyed on the ad, rollup-rows.ts), and lists the touched (account, bucket) in `touched`. */
async function stageRollups(q: Queryable, added: string, rolled: string, touched: string): Promise<void> {
  const narrow = `${rolled}_narrow`;
  await q.run(
    `CREATE TEMP TABLE ${narrow} AS
     SELECT ad_id, ts_us // ${BUCKET_US} AS bucket, (type = ${typeSql('impression')})::INTEGER AS imp, (type = ${typeSql('click')})::INTEGER AS clk, cost,
       country, device, platform, product_feed_id, product_item_id
     FROM ${added} WHERE type <> ${typeSql('conversion')}`,
  );
  try {
    const sums = 'sum(imp)::BIGINT AS impressions, sum(clk)::BIGINT AS clicks, sum(cost)::BIGINT AS spend_micros';
    for (const [i, [name, value, feed, item, keys]] of SEGMENT_ROLLUPS.filter(([n]) => n !== 'none').entries()) {
      await q.run(
        `${i === 0 ? `CREATE TEMP TABLE ${rolled} AS` : `INSERT INTO ${rolled}`}
         SELECT ad_id, bucket, '${name}' AS segment, ${value}::VARCHAR AS segment_value, ${feed}::VARCHAR AS feed_value, ${item}::VARCHAR AS item_value, ${sums}
         FROM ${narrow} GROUP BY ad_id, bucket${keys}`,
      );
    }
    // An ad's totals per bucket are the sums of its device rows (every event is in exactly one; no device is a row
    // of its own): a fifth of a million rows summed instead of every event again (10M events: 0.05 s, not 0.7 s).
    await q.run(
      `INSERT INTO ${rolled}
       SELECT ad_id, bucket, 'none', NULL, NULL, NULL, sum(impressions)::BIGINT, sum(clicks)::BIGINT, sum(spend_micros)::BIGINT
       FROM ${rolled} WHERE segment = 'device' GROUP BY ad_id, bucket`,
    );
    await q.run(`CREATE TEMP TABLE ${touched} AS SELECT DISTINCT ad.ad_account_id AS account, r.bucket FROM ${rolled} r JOIN ads ad ON ad.id = r.ad_id WHERE r.segment = 'none'`);
  } finally {
    await q.run(`DROP TABLE IF EXISTS ${narrow}`);
  }
}

/**
 * Rollups grow by the new events' own sums (staged in `rolled`), tagged with
 * the load's sequence number. A bucket's value is the sum of its rows, so it
 * is exact whatever order events arrive in, nothing is rewritten, and a
 * reader at watermark W sums only the rows of loads up to W (snapshot
 * reads). Compaction merges the rows of old loads.
 *
 * Each segment is its own aggregate keyed on (ad, bucket, value) only: the
 * account, campaign and ad group follow from the ad and are joined on after,
 * from the small ads table. Sparse data gives about as many segment rows as
 * events, and one GROUPING SETS aggregate keyed on all five ids was several
 * times slower than these narrow ones (bench ingest, 1M events).
 *
 * One insert per segment, each sorted by bucket: rows of one segment and
 * nearby times share row groups, so a report's scan skips the others by
 * their min/max, and no sort ever holds more than one segment's rows.
 */
async function insertRollups(tx: Queryable, rolled: string, seq: number): Promise<void> {
  for (const [name] of SEGMENT_ROLLUPS) {
    await tx.run(`INSERT INTO rollup_15m SELECT *, $seq FROM (${withEntityIds(rolled)} WHERE r.segment = '${name}') ORDER BY bucket`, { seq });
  }
}

/**
 * Billable spend per account-local day (the spend-limit counters) for the
 * days the new impressions and clicks fall on (`touchedBuckets`), summed from the rollups: a
 * 15-minute bucket lies within one local day in every zone, so only bucket
 * starts (not events) are converted to local dates.
 */
async function refreshDailySpend(tx: Queryable, touchedBuckets: string, nowMs: number): Promise<void> {
  const localDay = (us: string) => `strftime(timezone(a.timezone, make_timestamptz(${us})), '%Y-%m-%d')`;
  await tx.run(
    `INSERT OR REPLACE INTO account_daily_spend
     WITH touched AS (
       SELECT DISTINCT t.account, ${localDay(`t.bucket * ${BUCKET_US}`)} AS day
       FROM ${touchedBuckets} t JOIN ad_accounts a ON a.id = t.account
     ), buckets AS (
       -- Summed per bucket first, so only distinct bucket starts (a few thousand) are converted to local dates.
       SELECT r.ad_account_id AS account, r.bucket, sum(r.spend_micros) AS spend_micros
       FROM rollup_15m r
       WHERE r.segment = 'none' AND r.ad_account_id IN (SELECT account FROM touched)
         -- A local day lies within a day and a half of its UTC date: prune before converting.
         AND r.bucket BETWEEN (SELECT epoch_us(min(day)::TIMESTAMP) - 86400000000 FROM touched) // ${BUCKET_US}
                          AND (SELECT epoch_us(max(day)::TIMESTAMP) + 2 * 86400000000 FROM touched) // ${BUCKET_US}
       GROUP BY 1, 2
     ), days AS (
       SELECT b.account, ${localDay(`b.bucket * ${BUCKET_US}`)} AS day, b.spend_micros FROM buckets b JOIN ad_accounts a ON a.id = b.account
     )
     SELECT d.account, d.day, sum(d.spend_micros)::BIGINT, $now_ms
     FROM days d WHERE (d.account, d.day) IN (SELECT account, day FROM touched)
     GROUP BY 1, 2`,
    { now_ms: nowMs },
  );
}
