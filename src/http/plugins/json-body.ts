import { PassThrough, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/api-error.js';

/**
 * A parser pattern for a media type, with or without parameters: Fastify
 * tests a RegExp parser against the whole header, so `application/json;
 * charset=utf-8` (what many HTTP clients send) must match too.
 */
export const mediaTypePattern = (type: string): RegExp => new RegExp(`^${type}\\s*(;.*)?$`, 'i');

/** Bodies are read as UTF-8 (JSON is UTF-8 by RFC 8259): another declared charset is a 415, not mojibake. */
export function utf8Body(request: FastifyRequest): ApiError | null {
  const header = String(request.headers['content-type'] ?? '');
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(header)?.[1];
  if (charset === undefined || /^utf-?8$/i.test(charset)) return null;
  return new ApiError('unsupported_media_type', `Unsupported charset ${charset}; send the body as UTF-8.`);
}

/**
 * JSON bodies: an empty body counts as no body (clients often send
 * `content-type: application/json` on POSTs that take none); anything that
 * does not parse is a 400 `invalid_json`.
 */
export function installJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(mediaTypePattern('application/([\\w.+-]+\\+)?json'), { parseAs: 'string' }, (request, body, done) => {
    const charset = utf8Body(request);
    if (charset !== null) return done(charset, undefined);
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new ApiError('invalid_json', `The request body is not valid JSON (${(err as Error).message}).`), undefined);
    }
  });
}

const DECODERS: Record<string, () => Transform> = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress };

/**
 * Compressed bodies (`content-encoding: gzip`, `deflate` or `br`; a batch of
 * events compresses tenfold) are decoded before parsing. Body limits apply to
 * the decoded bytes, so a small bomb is still a 413; a body that does not
 * decode is a 400; another encoding is a 415.
 */
export function installBodyEncodings(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const encoding = String(request.headers['content-encoding'] ?? '').trim().toLowerCase();
    if (encoding === '' || encoding === 'identity' || request.method === 'GET' || request.method === 'HEAD') return payload;
    const decoder = DECODERS[encoding]?.();
    if (decoder === undefined) throw new ApiError('unsupported_media_type', `Unsupported Content-Encoding ${encoding}; send the body as gzip, deflate, br or unencoded.`);
    // Fastify checks Content-Length against the bytes received, which this stream counts for it.
    const out = Object.assign(new PassThrough(), { receivedEncodedLength: 0 });
    payload.on('data', (chunk: Buffer) => {
      out.receivedEncodedLength += chunk.length;
    });
    decoder.on('error', (err) => out.destroy(new ApiError('invalid_value', `The request body is not valid ${encoding} (${err.message}).`)));
    payload.pipe(decoder).pipe(out);
    return out;
  });
}
