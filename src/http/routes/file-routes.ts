import multipart, { type Multipart } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { getFile, openFileContent } from '../../domain/files/files.js';
import type { FormPart } from '../../domain/files/upload-form.js';
import { uploadAudienceForm, uploadImageForm, uploadImageFromUrl } from '../../domain/files/upload-service.js';
import { ApiError } from '../../errors/api-error.js';
import { pathId } from '../params.js';
import { route } from '../route.js';

const IdParams = z.object({ id: pathId });

/** The multipart library's own errors, all caused by the body the client sent. */
function formError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  switch (code) {
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new ApiError('invalid_value', 'The form has too many parts: send one file part and at most a purpose field.');
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError('request_too_large', 'file is larger than the upload limit.', { param: 'file' });
    case 'FST_PROTO_VIOLATION':
      return new ApiError('invalid_value', 'The form has a field name that is not allowed.');
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return new ApiError('invalid_value', 'A form field declared as JSON is not valid JSON.');
    default:
      return new ApiError('invalid_value', `The multipart/form-data body is malformed (${message}).`, { cause: err });
  }
}

async function* mapped(content: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    yield* content;
  } catch (err) {
    throw formError(err);
  }
}

/** The request's parts in the domain's terms; parser failures become 400s. */
async function* formParts(request: FastifyRequest): AsyncGenerator<FormPart> {
  const iterator = request.parts();
  for (;;) {
    let next: IteratorResult<Multipart>;
    try {
      next = await iterator.next();
    } catch (err) {
      throw formError(err);
    }
    if (next.done) return;
    const part = next.value;
    if (part.type === 'file') {
      yield { kind: 'file', name: part.fieldname, filename: part.filename === '' ? null : part.filename, content: mapped(part.file) };
    } else {
      yield { kind: 'field', name: part.fieldname, value: typeof part.value === 'string' ? part.value : String(part.value) };
    }
  }
}

function requireMultipart(request: FastifyRequest, what: string): void {
  if (!request.isMultipart()) {
    throw new ApiError('unsupported_media_type', `${what} takes multipart/form-data with a file part.`);
  }
}

/** Content-Disposition with a plain ASCII fallback and the exact name in RFC 5987 form. */
function disposition(kind: 'inline' | 'attachment', filename: string | null): string {
  if (filename === null) return kind;
  const ascii = filename.replace(/[^A-Za-z0-9._ -]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

function sendContentHeaders(reply: FastifyReply, file: { mime_type: string; size_bytes: number; filename: string | null }): void {
  const text = file.mime_type.startsWith('text/');
  reply.header('content-type', text ? `${file.mime_type}; charset=utf-8` : file.mime_type);
  reply.header('content-length', String(file.size_bytes));
  // A file id's bytes never change.
  reply.header('cache-control', 'private, max-age=31536000, immutable');
  // Uploaded bytes are the client's: never let a browser run or re-type them.
  reply.header('x-content-type-options', 'nosniff');
  reply.header('content-security-policy', "default-src 'none'; sandbox");
  reply.header('content-disposition', disposition(text ? 'attachment' : 'inline', file.filename));
}

/** POST /upload, POST /uploads, GET /files/{id}, GET /files/{id}/content (spec "Files"). */
export async function fileRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  // Its own scope, so multipart bodies are parsed for these routes only.
  await app.register(async (files) => {
    await files.register(multipart, {
      // One byte over the cap lets the domain tell "exactly at the limit" from "over it".
      limits: { fileSize: deps.config.uploadMaxBytes + 1, files: 2, fields: 4, parts: 8, fieldSize: 1024, fieldNameSize: 100 },
      throwFileSizeLimit: false,
    });
    // Any other body type: say what these routes take (Fastify's own 415 talks of JSON only).
    files.addContentTypeParser('*', (request, _payload, done) => {
      const url = request.routeOptions.url ?? '';
      const takes = url.endsWith('/uploads') ? 'multipart/form-data' : 'application/json or multipart/form-data';
      done(new ApiError('unsupported_media_type', `Unsupported Content-Type ${request.headers['content-type'] ?? '(none)'}; this endpoint takes ${takes}.`), undefined);
    });

    route(files, {
      method: 'POST',
      url: '/upload',
      // JSON is validated by the domain; a multipart body arrives as parts, not as a body.
      body: z.unknown(),
      handler: ({ auth, body, request }) =>
        request.isMultipart() ? uploadImageForm(deps, auth.accountId, formParts(request)) : uploadImageFromUrl(deps, auth.accountId, body),
    });

    route(files, {
      method: 'POST',
      url: '/uploads',
      body: z.unknown(),
      handler: ({ auth, request }) => {
        requireMultipart(request, 'POST /v1/uploads');
        return uploadAudienceForm(deps, auth.accountId, formParts(request));
      },
    });

    route(files, {
      method: 'GET',
      url: '/files/:id',
      params: IdParams,
      handler: ({ auth, params }) => getFile(deps, auth.accountId, params.id),
    });

    route(files, {
      method: 'GET',
      url: '/files/:id/content',
      params: IdParams,
      handler: async ({ auth, params, reply }) => {
        const { file, stream } = await openFileContent(deps, auth.accountId, params.id);
        sendContentHeaders(reply, file);
        return stream;
      },
    });
  });
}
