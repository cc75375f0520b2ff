import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Config } from '../../config.js';
import { toUnixSeconds } from '../../clock.js';
import { ApiError } from '../../errors/api-error.js';
import { fileRepository, type FileRecord } from '../../store/repositories/file-repository.js';
import type { Store } from '../../store/store.js';
import { describePurpose, type StoredPurpose } from './file-purposes.js';
import { blobPath } from './file-store.js';

/** The wire shape of an uploaded file (`GET /v1/files/{id}`). */
export interface WireFile {
  id: string;
  object: 'file';
  purpose: string | null;
  filename: string | null;
  mime_type: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
  created_at: number;
}

export function toWireFile(f: FileRecord): WireFile {
  return {
    id: f.id,
    object: 'file',
    purpose: f.purpose,
    filename: f.filename,
    mime_type: f.mime_type,
    size_bytes: f.size_bytes,
    width: f.width,
    height: f.height,
    created_at: toUnixSeconds(f.created_at_ms),
  };
}

/** Where clients fetch a file's bytes; ad accounts' `preview_url` and creatives' `image_url` use it. */
export function fileContentUrl(config: Pick<Config, 'publicUrl'>, fileId: string): string {
  return `${config.publicUrl}/v1/files/${encodeURIComponent(fileId)}/content`;
}

/**
 * A file of an account, for code that takes a `file_id` from a client (brand
 * favicons, ad creatives, custom audiences). 404 `resource_missing` when the
 * account has no such file; with `purpose` given, 400 `invalid_value` when the
 * file was uploaded for something else (`null` asks for a creative image).
 * `param` names the request field the id came from, for both errors.
 */
export async function requireFile(
  deps: { store: Store },
  accountId: string,
  fileId: string,
  expect: { purpose?: StoredPurpose; param?: string } = {},
): Promise<FileRecord> {
  const param = expect.param ?? null;
  const file = await fileRepository.get(deps.store, accountId, fileId);
  if (!file) throw ApiError.notFound('file', fileId, param);
  if (expect.purpose !== undefined && file.purpose !== expect.purpose) {
    const was = file.purpose === null ? 'is a creative image' : `was uploaded with purpose ${file.purpose}`;
    throw new ApiError('invalid_value', `File '${file.id}' ${was}; this needs ${describePurpose(expect.purpose)}.`, { param });
  }
  return file;
}

export async function getFile(deps: { store: Store }, accountId: string, fileId: string): Promise<WireFile> {
  return toWireFile(await requireFile(deps, accountId, fileId));
}

/** Absolute path of a file's stored bytes (jobs that parse audience lists read it). */
export function fileBlobPath(config: Pick<Config, 'dataDir'>, file: Pick<FileRecord, 'storage_path'>): string {
  return blobPath(config.dataDir, file.storage_path);
}

/** A file's bytes as a stream, with its record; 404 for files of other accounts. */
export async function openFileContent(
  deps: { store: Store; config: Pick<Config, 'dataDir'> },
  accountId: string,
  fileId: string,
): Promise<{ file: FileRecord; stream: Readable }> {
  const file = await requireFile(deps, accountId, fileId);
  const path = fileBlobPath(deps.config, file);
  // A row without its blob is our fault (a data dir restored in part): a 500 with the cause logged.
  await stat(path).catch((err: unknown) => {
    throw new Error(`blob of ${file.id} is missing at ${path}`, { cause: err });
  });
  return { file, stream: createReadStream(path) };
}
