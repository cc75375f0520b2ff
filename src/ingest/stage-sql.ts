import { EVENT_FIELDS, type EventFileFormat } from './event-contract.js';

/**
 * Reading event files with DuckDB's own readers: one row per record,
 * `line_no` where it came from, `raw` text for the quarantine, and every
 * contract field as text (types are checked afterwards, in SQL). The file
 * path is a bound parameter ($path); column names come from the contract,
 * never from the file.
 *
 * A format gives a SELECT of those columns: Parquet straight from the file;
 * NDJSON and CSV from their lines or records, numbered into a temp table
 * first (`fileStage`).
 */

const lineReader = (source: string, extra = '') => `read_csv(${source}, columns = {'line': 'VARCHAR'}, header = false, delim = chr(0), quote = '', escape = '',
  auto_detect = false, strict_mode = false, parallel = true, compression = 'auto'${extra})`;
const LINE_READER = lineReader('$path');

/**
 * The lines of several NDJSON files ($paths, a list) in the order given, each
 * with the file it came from: a load of several small batches numbers them
 * as one file and tells the files apart by their line ranges (`batchParts`).
 */
const BATCH_LINE_READER = lineReader('$paths', ', filename = true');

/** Several NDJSON files staged as one (`fileStage` with `batch`), numbered in the order of $paths. */
export const batchStage = (tag: string): string => `CREATE TEMP TABLE src_${tag} AS SELECT line, filename FROM ${BATCH_LINE_READER}`;

/** Each staged file's first and last line in the numbering of the whole batch (a file without lines has none). */
export const batchParts = (tag: string): string => `SELECT filename, min(rowid) + 1 AS first_line, max(rowid) + 1 AS last_line FROM src_${tag} GROUP BY filename`;

/** Lines as text in file order: NUL never occurs in JSON or CSV text; the single-row window keeps the pipeline in order. */
const LINES = `SELECT row_number() OVER () AS line_no, line FROM ${LINE_READER}`;

/**
 * A line with more than spaces (what trim() removes). A line that does not
 * start with a space is one when it is not empty, and skips trim(), which
 * copies every line it looks at (10M NDJSON lines: 7 s against 1.3 s).
 */
const NOT_BLANK = `line IS NOT NULL AND line <> '' AND (NOT starts_with(line, ' ') OR trim(line) <> '')`;

/** The text of line 1 (a CSV header), read the same way as NDJSON lines; the scan keeps file order, so it stops there. */
export const FIRST_LINE = `SELECT line FROM ${LINE_READER} LIMIT 1`;

/** How many lines the file has, blank ones included (CSV: do records and lines pair up one to one?). */
const LINE_COUNT = `SELECT count(*) FROM ${LINE_READER}`;

/**
 * NDJSON: lines read as text, each object parsed into all the contract
 * fields as text. A line is parsed only once it is known to be valid JSON
 * and an object (it starts with `{`, or JSON says so: leading blanks), so the
 * parse never fails. Not `try(json_transform(...))`: a failure inside try()
 * sends its whole vector down a row-by-row path, and a file with one bad
 * line in a thousand has one in most vectors (2M lines: 1.9 s against 0.5 s).
 * A field sent as an object, array or boolean is a wrong type, not an absent
 * one, and is not taken as text. As text such a field reads `{...}`,
 * `[...]`, `true` or `false`, so only lines with a field of such text have
 * their JSON types looked up; every other line's fields are its parsed
 * ones as they are, picked as one struct rather than field by field (10M
 * lines: searching each line for brackets and words, and choosing each
 * field apart, took 10 of the check's 27 s of CPU; now 3).
 */
function ndjsonRows(lines: string): string {
  const paths = `[${EVENT_FIELDS.map((f) => `'$.${f}'`).join(', ')}]`;
  const shape = `'{${EVENT_FIELDS.map((f) => `"${f}":"VARCHAR"`).join(',')}}'`;
  // A field whose text could be an object, an array or a boolean: only such lines have their JSON types looked up.
  const suspect = `j IS NOT NULL AND (${EVENT_FIELDS.map((f) => `prefix(j.${f}, '{') OR prefix(j.${f}, '[') OR j.${f} = 'true' OR j.${f} = 'false'`).join(' OR ')})`;
  const kept = `{${EVENT_FIELDS.map((f, i) => `${f}: CASE WHEN types[${i + 1}] IN ('VARCHAR','BIGINT','UBIGINT','DOUBLE') THEN j.${f} END`).join(', ')}}`;
  return `WITH parsed AS (
      SELECT line_no, line,
        CASE WHEN json_valid(line) AND (starts_with(line, '{') OR json_type(line) = 'OBJECT') THEN json_transform(line, ${shape}) END AS j
      FROM ${lines}
    ), typed AS (
      SELECT *, CASE WHEN ${suspect} THEN json_type(line, ${paths}) END AS types FROM parsed
    ), fields AS (
      -- The text of each field of the JSON types that have one; a line with none looked up keeps its parsed fields whole.
      SELECT line_no, line, j IS NULL AS invalid, types, CASE WHEN types IS NULL THEN j ELSE ${kept} END AS k FROM typed
    )
    SELECT line_no, line AS raw, CASE WHEN invalid THEN 'invalid_json' END AS parse_error,
      coalesce(list_has_any(types, ['OBJECT', 'ARRAY', 'BOOLEAN']), false) AS wrong_type,
      ${EVENT_FIELDS.map((f) => `k.${f} AS ${f}`).join(', ')}
    FROM fields`;
}

/** The CSV reader with a fixed dialect (comma, double quotes) and the header's own columns; malformed rows go to `rej_<tag>`. */
function csvRecords(header: readonly string[], tag: string): string {
  const columns = header.map((c) => `'${c.replaceAll("'", "''")}': 'VARCHAR'`).join(', ');
  return `read_csv($path, columns = {${columns}}, header = true, auto_detect = false,
       delim = ',', quote = '"', escape = '"', strict_mode = true, parallel = true, compression = 'auto',
       store_rejects = true, ignore_errors = true, rejects_table = 'rej_${tag}', rejects_scan = 'rejscan_${tag}')`;
}

/**
 * A field's text without surrounding spaces, or NULL when nothing is left.
 * Only a field that starts or ends with a space goes through trim(), which
 * copies every string it is given (10M records: 4 of 20 s of the check).
 */
const csvField = (v: string) => `CASE WHEN starts_with(${v}, ' ') OR ends_with(${v}, ' ') THEN nullif(trim(${v}), '') ELSE nullif(${v}, '') END`;

const csvFields = (header: readonly string[], from: string) =>
  EVENT_FIELDS.map((f) => (header.includes(f) ? `${csvField(`${from}."${f}"`)} AS ${f}` : `NULL::VARCHAR AS ${f}`));

/**
 * CSV records numbered by their lines. Record k (numbered k + 1 as read) is
 * on line k + 1 plus the rejected lines before it, when every line is the
 * header, one record or one rejected row (`csvLinesHold`): the shifts come
 * from the few rejected lines (`csvShifts`), looked up by block. Otherwise
 * (blank lines, a quoted field across lines) the records keep k + 1 here and
 * the load renumbers them from the file's lines (`csvRenumbered`).
 */
function csvRows(header: readonly string[], tag: string, shifted: boolean): string {
  const shift = `coalesce(k.base, error('CSV record ' || s.line_no || ' has no shift block')) + coalesce(len(list_filter(k.adjs, lambda a: a < s.line_no)), 0)`;
  return `SELECT ${shifted ? `s.line_no + ${shift}` : 's.line_no'} AS line_no, NULL::VARCHAR AS raw, NULL::VARCHAR AS parse_error, false AS wrong_type,
      ${csvFields(header, 's.rec').join(', ')}
    FROM ${numbered('csv', tag)} s${shifted ? ` LEFT JOIN shift_${tag} k ON k.b = s.line_no // ${SHIFT_BLOCK}` : ''}`;
}

/**
 * Is every line of the file the header, one record or one rejected row?
 * $records: how many records the read kept. Blank lines and records across
 * lines both make the file longer than that, so the counts tell.
 */
export const csvLinesHold = (tag: string) =>
  `SELECT (${LINE_COUNT}) = $records + 1 + (SELECT count(DISTINCT line) FROM rej_${tag}) AS holds`;

/** Records per block of the shift lookup (`csvShifts`). */
const SHIFT_BLOCK = 64;

/**
 * With rejected lines r_1 < ... < r_m, record k + 1 as read lies on line
 * k + 1 + j, j the number of i with r_i - i < k + 1 (r_i - i never
 * decreases). Records are looked up by block of SHIFT_BLOCK numbers: a
 * block has the count of those r_i - i below it (`base`) and the list of
 * those within it (`adjs`, none in most blocks), so each record costs an
 * equi join on a small table. An ASOF join here sorted every record with
 * all its fields (17 s of CPU for 10M records). $records: how many records
 * the read kept, so that every record's block is listed.
 */
export const csvShifts = (tag: string) => `CREATE TEMP TABLE shift_${tag} AS
  WITH adj AS (
    SELECT (line - row_number() OVER (ORDER BY line))::BIGINT AS adj FROM (SELECT DISTINCT line FROM rej_${tag})
  ), per AS (
    SELECT adj // ${SHIFT_BLOCK} AS b, count(*) AS c, list(adj ORDER BY adj) AS adjs FROM adj GROUP BY 1
  )
  SELECT r.b, coalesce(sum(p.c) OVER (ORDER BY r.b ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::BIGINT AS base, p.adjs
  FROM range(0, $records // ${SHIFT_BLOCK} + 2) r(b) LEFT JOIN per p USING (b)`;

/** The rejected rows as checked rows, one per row the reader numbered (`line_no`: its number, the line itself when every row is one line). */
export const csvMalformed = (tag: string) =>
  `SELECT line AS line_no, 'malformed_row' AS reason, any_value(csv_line) AS raw, 'the CSV reader: ' || min(error_message) AS detail FROM rej_${tag} GROUP BY line`;

/**
 * CSV in general: DuckDB's sniffer is not used, since it may take a malformed
 * row for the header and skip what comes before it. Malformed rows are kept
 * as rejects and quarantined. The reader numbers rows (its rejects' `line`)
 * counting the header, each record or rejected row once however many lines
 * it spans, and each blank line. A row starts on a line that begins outside
 * quotes: an even number of quote characters on the lines before it (an
 * escaped quote is two). Row n's line is the n-th such line; a record's is
 * the k-th of those that are neither the header, blank nor rejected. The
 * checks do not depend on line numbers, so the rows of the direct read
 * (`checked`, numbered k + 1) are renumbered here, not read again.
 */
export const csvRenumbered = (checked: string, tag: string): string => `
  WITH quoted AS (
    SELECT line_no, line, sum((length(line) - length(replace(line, '"', ''))) % 2) OVER (ORDER BY line_no ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
    FROM (${LINES})
  ), starts AS (
    SELECT line_no, line, row_number() OVER (ORDER BY line_no) AS n FROM quoted WHERE coalesce(before, 0) % 2 = 0
  ), good AS (
    SELECT line_no, row_number() OVER (ORDER BY line_no) + 1 AS k1 FROM starts
    WHERE n > 1 AND ${NOT_BLANK} AND n NOT IN (SELECT line FROM rej_${tag})
  )
  SELECT g.line_no, c.* EXCLUDE (line_no) FROM ${checked} c JOIN good g ON g.k1 = c.line_no
  UNION ALL BY NAME
  SELECT s.line_no, m.reason, m.raw, m.detail FROM (${csvMalformed(tag)}) m JOIN starts s ON s.n = m.line_no`;

/**
 * Contract fields a Parquet file may hold as integers. They are read as
 * BIGINT then, not as text to be parsed back (about 1 s of a 10M-row read).
 */
export const INTEGER_FIELDS = ['timestamp', 'cost_micros'] as const;

/** Parquet: columns of the contract cast to text, those in `integers` (INTEGER_FIELDS) to BIGINT; a row's number is its position in the file. */
function parquetRows(present: readonly string[], integers: readonly string[]): string {
  const fields = EVENT_FIELDS.map((f) =>
    !present.includes(f) ? `NULL::VARCHAR AS ${f}` : integers.includes(f) ? `CAST("${f}" AS BIGINT) AS ${f}` : `CAST("${f}" AS VARCHAR) AS ${f}`,
  );
  // The reader's own row number is exact and keeps the scan parallel; a file with a column of that name is numbered by a window.
  const own = !present.includes('file_row_number');
  return `SELECT ${own ? 'file_row_number + 1' : 'row_number() OVER ()'} AS line_no, NULL::VARCHAR AS raw, NULL::VARCHAR AS parse_error,
      false AS wrong_type, ${fields.join(', ')}
    FROM read_parquet($path${own ? ', file_row_number = true' : ''})`;
}

/**
 * Numbering lines or records in file order by a window runs everything
 * above the window on one thread. So NDJSON lines and CSV records are first
 * copied, in file order, into a temp table (`src_<tag>`, the light part),
 * and parsed and checked from there in parallel (2M NDJSON lines in one
 * pipeline: 8.6 s). A table made by CREATE TABLE AS keeps the order its rows
 * were read in (DuckDB preserves insertion order), so a row's number is its
 * rowid plus the lines before the first row (`numbered`), and the copy needs
 * no window either: 10M NDJSON lines were copied in 2.0 to 4.0 s, against
 * 3.4 to 7.6 s numbered by a window. Parquet rows carry the reader's own
 * number and need no such step (null).
 */
export function fileStage(format: EventFileFormat, columns: readonly string[], tag: string): string | null {
  switch (format) {
    case 'ndjson':
      return `CREATE TEMP TABLE src_${tag} AS SELECT line FROM ${LINE_READER}`;
    case 'csv':
      // The record as one struct, so the file's own column names never meet line_no.
      return `CREATE TEMP TABLE src_${tag} AS SELECT r AS rec FROM ${csvRecords(columns, tag)} r`;
    case 'parquet':
      return null;
  }
}

/**
 * A SELECT of line_no, raw, parse_error, wrong_type and the contract fields,
 * read from the file (after `fileStage`, when it gives a statement);
 * `columns`: the file's own (CSV header, Parquet schema); `csvShifted`: CSV
 * records numbered through `csvShifts` (made first).
 */
export function fileRows(format: EventFileFormat, columns: readonly string[], tag: string, csvShifted = false, integers: readonly string[] = []): string {
  switch (format) {
    case 'ndjson':
      return ndjsonRows(`${numbered('ndjson', tag)} WHERE ${NOT_BLANK}`);
    case 'csv':
      return csvRows(columns, tag, csvShifted);
    case 'parquet':
      return parquetRows(columns, integers);
  }
}

/** The staged rows of `fileStage` with their numbers: line 1 is an NDJSON file's first row, a CSV file's header. */
const numbered = (format: 'ndjson' | 'csv', tag: string) => `(SELECT rowid + ${format === 'ndjson' ? 1 : 2} AS line_no, * FROM src_${tag})`;

/** Temporary tables a read may leave besides the ones the loader names. */
export const stageLeftovers = (tag: string): string[] => [`src_${tag}`, `rej_${tag}`, `rejscan_${tag}`, `shift_${tag}`];

/** A Parquet file's columns, and whether each is a signed or narrow integer (BIGINT holds every value of it). */
export const PARQUET_COLUMNS = `SELECT column_name, column_type IN ('BIGINT', 'INTEGER', 'SMALLINT', 'TINYINT', 'UINTEGER', 'USMALLINT', 'UTINYINT') AS integer
  FROM (DESCRIBE SELECT * FROM read_parquet($path))`;
