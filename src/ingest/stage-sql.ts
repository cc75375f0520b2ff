import { EVENT_FIELDS, type EventFileFormat } from './event-contract.js';

/**
 * Reading event files into a staging table with DuckDB's own readers: one row
 * per record, `line_no` where it came from, `raw` text for the quarantine,
 * and every contract field as text (types are checked afterwards, in SQL).
 * The file path is a bound parameter ($path); column names come from the
 * contract, never from the file.
 */

const LINES = `SELECT row_number() OVER () AS line_no, line
  FROM read_csv($path, columns = {'line': 'VARCHAR'}, header = false, delim = chr(0), quote = '', escape = '',
                auto_detect = false, strict_mode = false, parallel = false, compression = 'auto')`;

/** The text of line 1 (a CSV header), read the same way as NDJSON lines. */
export const FIRST_LINE = `SELECT line FROM (${LINES}) WHERE line_no = 1`;

/** NDJSON: lines read as text in file order (NUL never occurs in JSON text), then parsed in SQL. */
function ndjsonStage(stage: string): string[] {
  // Each line is parsed a few times in all, not once per field: the values and
  // the JSON types of every contract field come back as two lists.
  const paths = `[${EVENT_FIELDS.map((f) => `'$.${f}'`).join(', ')}]`;
  const fields = EVENT_FIELDS.map((f, i) => `CASE WHEN types[${i + 1}] IN ('VARCHAR','BIGINT','UBIGINT','DOUBLE') THEN vals[${i + 1}] END AS ${f}`);
  return [
    `CREATE TEMP TABLE ${stage} AS
     WITH parsed AS (
       SELECT line_no, line, CASE WHEN json_valid(line) AND json_type(line) = 'OBJECT' THEN line END AS j
       FROM (${LINES}) WHERE line IS NOT NULL AND trim(line) <> ''
     ), extracted AS (
       SELECT line_no, line, j, json_extract_string(j, ${paths}) AS vals, json_type(j, ${paths}) AS types FROM parsed
     )
     SELECT line_no, line AS raw, CASE WHEN j IS NULL THEN 'invalid_json' END AS parse_error,
       -- A field sent as an object, array or boolean is a wrong type, not an absent one.
       coalesce(list_has_any(types, ['OBJECT', 'ARRAY', 'BOOLEAN']), false) AS wrong_type,
       ${fields.join(', ')}
     FROM extracted`,
  ];
}

/**
 * CSV with a header row, read with a fixed dialect (comma, double quotes) and
 * the header's own columns: DuckDB's sniffer may otherwise take a malformed
 * row for the header and skip what comes before it. Malformed rows are kept
 * as rejects and quarantined; a record's line number is its place among the
 * lines that were not rejected (records are one line each).
 */
function csvStage(stage: string, header: readonly string[], tag: string): string[] {
  const columns = header.map((c) => `'${c.replaceAll("'", "''")}': 'VARCHAR'`).join(', ');
  const fields = EVENT_FIELDS.map((f) => (header.includes(f) ? `nullif(trim(r."${f}"), '') AS ${f}` : `NULL::VARCHAR AS ${f}`));
  return [
    `CREATE TEMP TABLE recs_${tag} AS
     SELECT row_number() OVER () AS k, * FROM read_csv($path, columns = {${columns}}, header = true, auto_detect = false,
       delim = ',', quote = '"', escape = '"', strict_mode = true, parallel = false, compression = 'auto',
       store_rejects = true, ignore_errors = true, rejects_table = 'rej_${tag}', rejects_scan = 'rejscan_${tag}')`,
    `CREATE TEMP TABLE ${stage} AS
     WITH good AS (
       SELECT line_no, row_number() OVER (ORDER BY line_no) AS k FROM (${LINES})
       WHERE line_no > 1 AND line IS NOT NULL AND trim(line) <> '' AND line_no NOT IN (SELECT line FROM rej_${tag})
     )
     SELECT g.line_no, NULL::VARCHAR AS raw, NULL::VARCHAR AS parse_error, false AS wrong_type, ${fields.join(', ')}
     FROM recs_${tag} r JOIN good g USING (k)
     UNION ALL
     SELECT line, any_value(csv_line), 'malformed_row', false, ${EVENT_FIELDS.map((f) => `NULL::VARCHAR AS ${f}`).join(', ')}
     FROM rej_${tag} GROUP BY line`,
  ];
}

/** Parquet: columns of the contract cast to text; a row's number is its position in the file. */
function parquetStage(stage: string, present: readonly string[]): string[] {
  const fields = EVENT_FIELDS.map((f) => (present.includes(f) ? `CAST("${f}" AS VARCHAR) AS ${f}` : `NULL::VARCHAR AS ${f}`));
  return [
    `CREATE TEMP TABLE ${stage} AS
     SELECT row_number() OVER () AS line_no, NULL::VARCHAR AS raw, NULL::VARCHAR AS parse_error, false AS wrong_type, ${fields.join(', ')}
     FROM read_parquet($path)`,
  ];
}

/** Statements that fill the staging table `stage`; `columns` are the file's own column names (CSV header, Parquet schema). */
export function stageStatements(format: EventFileFormat, stage: string, columns: readonly string[], tag: string): string[] {
  switch (format) {
    case 'ndjson':
      return ndjsonStage(stage);
    case 'csv':
      return csvStage(stage, columns, tag);
    case 'parquet':
      return parquetStage(stage, columns);
  }
}

/** Temporary tables a stage may leave besides the stage itself. */
export const stageLeftovers = (tag: string): string[] => [`recs_${tag}`, `rej_${tag}`, `rejscan_${tag}`];

export const PARQUET_COLUMNS = `SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet($path))`;
