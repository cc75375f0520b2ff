import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/api-error.js';

/**
 * JSON bodies: an empty body counts as no body (clients often send
 * `content-type: application/json` on POSTs that take none); anything that
 * does not parse is a 400 `invalid_json`.
 */
export function installJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json$/i, { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new ApiError('invalid_json', `The request body is not valid JSON (${(err as Error).message}).`), undefined);
    }
  });
}
