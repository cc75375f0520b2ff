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
