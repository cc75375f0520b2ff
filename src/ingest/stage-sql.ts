import { EVENT_FIELDS, type EventFileFormat } from './event-contract.js';

/**
 * Reading event files into a staging table with DuckDB's own readers: one row
 * per record, `line_no` where it came from, `raw` text for the quarantine,
 * and every contract field as text (types are checked afterwards, in SQL).
 * The file path is a bound parameter ($path); column names come from the
 * contract, never from the file.
 */

/** NDJSON: lines read as text in file order (NUL never occurs in JSON text), then parsed in SQL. */
function ndjsonStage(): string {
  const fields = EVENT_FIELDS.map(
    (f) => `CASE WHEN json_type(j, '$.${f}') IN ('VARCHAR','BIGINT','UBIGINT','DOUBLE') THEN json_extract_string(j, '$.${f}') END AS ${f}`,
  );
  // A field sent as an object, array or boolean is a wrong type, not an absent one.
  const wrongType = EVENT_FIELDS.map((f) => `coalesce(json_type(j, '$.${f}') IN ('OBJECT','ARRAY','BOOLEAN'), false)`).join(' OR ');
  return `
    WITH lines AS (
      SELECT row_number() OVER () AS line_no, line
      FROM read_csv($path, columns = {'line': 'VARCHAR'}, header = false, delim = chr(0), quote = '', escape = '',
                    auto_detect = false, strict_mode = false, parallel = false, compression = 'auto')
    ), parsed AS (
      SELECT line_no, line, CASE WHEN json_valid(line) AND json_type(line::JSON) = 'OBJECT' THEN line::JSON END AS j
      FROM lines WHERE line IS NOT NULL AND trim(line) <> ''
    )
    SELECT line_no, line AS raw, j IS NOT NULL AS parsed, coalesce(${wrongType}, false) AS wrong_type, ${fields.join(', ')}
    FROM parsed`;
}

/** CSV with a header row; `present` are the contract columns the header has (others are NULL). */
function csvStage(present: readonly string[]): string {
  const fields = EVENT_FIELDS.map((f) => (present.includes(f) ? `nullif(trim("${f}"), '') AS ${f}` : `NULL::VARCHAR AS ${f}`));
  return `
    SELECT row_number() OVER () + 1 AS line_no, NULL::VARCHAR AS raw, true AS parsed, false AS wrong_type, ${fields.join(', ')}
    FROM read_csv($path, header = true, all_varchar = true, parallel = false, compression = 'auto')`;
}

/** Parquet: columns of the contract cast to text; a row's number is its position in the file. */
function parquetStage(present: readonly string[]): string {
  const fields = EVENT_FIELDS.map((f) => (present.includes(f) ? `CAST("${f}" AS VARCHAR) AS ${f}` : `NULL::VARCHAR AS ${f}`));
  return `
    SELECT row_number() OVER () AS line_no, NULL::VARCHAR AS raw, true AS parsed, false AS wrong_type, ${fields.join(', ')}
    FROM read_parquet($path)`;
}

export function stageQuery(format: EventFileFormat, present: readonly string[]): string {
  switch (format) {
    case 'ndjson':
      return ndjsonStage();
    case 'csv':
      return csvStage(present);
    case 'parquet':
      return parquetStage(present);
  }
}

/** The statement that lists a CSV or Parquet file's column names (to know which contract fields it has). */
export function columnsQuery(format: 'csv' | 'parquet'): string {
  return format === 'csv'
    ? `SELECT column_name FROM (DESCRIBE SELECT * FROM read_csv($path, header = true, all_varchar = true, compression = 'auto'))`
    : `SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet($path))`;
}
