import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiKeyVerifier, type AuthContext } from '../../domain/api-keys.js';
import { ApiError } from '../../errors/api-error.js';
import type { Store } from '../../store/store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every authenticated route. */
    auth: AuthContext | null;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * `Authorization: Bearer <key>` on every route of the scope it is installed
 * in. Runs on request, before the body is read, so an unauthenticated caller
 * learns nothing about validation.
 */
export function installAuth(app: FastifyInstance, store: Store): void {
  const keys = new ApiKeyVerifier(store);
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (header === undefined || /^\s*(Bearer)?\s*$/i.test(header)) {
      throw new ApiError('missing_api_key', 'You did not provide an API key. Send it as "Authorization: Bearer <API_KEY>".');
    }
    const m = BEARER.exec(header);
    if (!m) throw new ApiError('invalid_api_key', 'Malformed Authorization header. Use "Authorization: Bearer <API_KEY>".');
    const auth = await keys.verify(m[1] as string);
    if (!auth) throw new ApiError('invalid_api_key', 'Invalid API key provided.');
    request.auth = auth;
  });
}

export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new ApiError('missing_api_key', 'You did not provide an API key.');
  return request.auth;
}
