import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, toApiError } from '../../errors/api-error.js';

/** Maps Fastify's own transport errors onto the closed code list. */
function fromFastifyError(err: FastifyError, request: FastifyRequest): ApiError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('request_too_large', 'The request body is larger than this endpoint accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', `Unsupported Content-Type ${request.headers['content-type'] ?? '(none)'}; this endpoint takes application/json.`);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_value', 'The Content-Length header does not match the body.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_json', 'The request body is not valid JSON.');
    case 'FST_ERR_BAD_URL':
      return new ApiError('invalid_value', 'The request URL is malformed.');
    default:
      return undefined;
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const api = err instanceof ApiError ? err : (fromFastifyError(err as FastifyError, request) ?? toApiError(err));
  if (api.status >= 500) {
    // Details stay in the log; the client gets the generic message and the request id.
    request.log.error({ err: api.cause ?? api, reqId: request.id }, 'request failed');
  }
  reply.header('x-request-id', request.id);
  for (const [name, value] of Object.entries(api.headers)) reply.header(name, value);
  return reply.status(api.status).send(api.toBody());
}

/**
 * One place renders every error as `{"error":{message,type,param,code}}`:
 * thrown ApiErrors, transport errors, unknown routes and methods, and bugs.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => sendError(request, reply, err));
  app.setNotFoundHandler((request, reply) => {
    const method = request.method.toUpperCase();
    if (method === 'PUT' || method === 'PATCH' || method === 'DELETE') {
      // Spec conventions: mutations use POST, including update and delete.
      return sendError(
        request,
        reply,
        new ApiError('method_not_allowed', `${method} is not supported. This API uses GET to read and POST to create, update and delete.`, {
          headers: { allow: 'GET, POST' },
        }),
      );
    }
    const path = request.url.split('?')[0] ?? request.url;
    return sendError(request, reply, new ApiError('route_not_found', `Unrecognized request URL (${method} ${path}).`));
  });
}
