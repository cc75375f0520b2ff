import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../errors/api-error.js';
import type { InsightsRequest } from './request.js';

/**
 * Row ids and cursors (COMPAT.md, Insights details): a row id reads
 * `start=<unix>:end=<unix>:entity_id=<id>`, then the segment part
 * (`:country=US`, `:product=<feed>/<item>`), then `:cursor=<token>`. The token
 * carries the row's sort keys, the data watermark the first page was read at
 * (so later pages read the same data), and a digest of the query, so that a
 * cursor from another query is refused rather than misread.
 */
const Token = z.object({ k: z.array(z.union([z.string(), z.number()])), w: z.number().int().min(0), h: z.string() }).strict();
export type CursorToken = z.infer<typeof Token>;

/** Digest of everything that decides the rows and their order (not the projection or the page size). */
export function queryDigest(req: InsightsRequest): string {
  const shape = {
    scope: req.scope,
    level: req.level,
    granularity: req.granularity,
    range: req.range,
    filters: req.filters.map((f) => (f.kind === 'feed_items' ? f : { ...f, field: f.field.name })),
    sort: req.sort.map((s) => [s.field.name, s.direction]),
    segment: req.segment,
    segmentFirst: req.segmentFirst,
    include: req.include,
    attribution: req.attribution,
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('base64url').slice(0, 16);
}

export function encodeToken(t: CursorToken): string {
  return Buffer.from(JSON.stringify(t)).toString('base64url');
}

/** The token of a row id (or of a bare token), checked against the query it is used with. */
export function decodeCursor(text: string, param: 'after' | 'before', digest: string): CursorToken {
  const token = text.includes(':cursor=') ? text.slice(text.lastIndexOf(':cursor=') + ':cursor='.length) : text;
  let parsed: CursorToken;
  try {
    parsed = Token.parse(JSON.parse(Buffer.from(token, 'base64url').toString('utf8')));
  } catch {
    throw new ApiError('invalid_value', `${param} is not a cursor of this API; use first_id or last_id of a previous page.`, { param });
  }
  if (parsed.h !== digest) {
    throw new ApiError('invalid_value', `${param} is a cursor of a different query; page with the same parameters (only fields and limit may change).`, { param });
  }
  return parsed;
}
