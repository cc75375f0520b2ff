import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { ApiError } from '../../errors/api-error.js';
import { parseOrThrow } from '../../errors/zod-issues.js';
import { ID_PREFIX, newId } from '../../ids.js';
import { fileRepository } from '../../store/repositories/file-repository.js';
import type { Store } from '../../store/store.js';
import { chooseIconUrl, looksLikeHtml } from './favicon-links.js';
import { FAVICON_MIN_PIXELS, type StoredPurpose } from './file-purposes.js';
import { BlobWriter, commitBlob, discardStaged, type StagedBlob } from './file-store.js';
import { IMAGE_TYPE_NAMES, probeImage, type ImageInfo } from './image-probe.js';
import { FetchRefused, safeFetch, type FetchedResource } from './safe-fetch.js';
import { probeTextFile } from './text-probe.js';
import { AudiencePurpose, FormImagePurpose, UrlUploadInput } from './upload-inputs.js';
import { cleanFilename, readUploadForm, type FormPart } from './upload-form.js';

/** `POST /upload` and `POST /uploads` (spec "Files"): validate, store the bytes once, record a row. */

export interface UploadDeps {
  config: Pick<Config, 'dataDir' | 'uploadMaxBytes' | 'fetchAllowPrivate' | 'fetchTimeoutMs'>;
  store: Store;
  clock: Clock;
}

export interface UploadResult {
  file_id: string;
}

interface FileMeta {
  purpose: StoredPurpose;
  filename: string | null;
  mimeType: string;
  width: number | null;
  height: number | null;
  sourceUrl: string | null;
}

/** Blob first, row second: a row never points at bytes that are not there (an orphan blob is harmless). */
async function saveFile(deps: UploadDeps, accountId: string, staged: StagedBlob, meta: FileMeta): Promise<UploadResult> {
  const storagePath = await commitBlob(deps.config.dataDir, staged);
  const row = await fileRepository.insert(deps.store, {
    id: newId(ID_PREFIX.file),
    ad_account_id: accountId,
    purpose: meta.purpose,
    filename: meta.filename,
    mime_type: meta.mimeType,
    size_bytes: staged.size,
    width: meta.width,
    height: meta.height,
    sha256: staged.sha256,
    storage_path: storagePath,
    source_url: meta.sourceUrl,
    created_at_ms: deps.clock.nowMs(),
  });
  return { file_id: row.id };
}

const acceptedNames = (purpose: StoredPurpose): string =>
  purpose === 'account_favicon' ? 'PNG, JPEG, GIF, WebP or ICO' : 'PNG, JPEG, GIF or WebP';

/**
 * The image rules of the spec: a real image of an accepted type, judged by its
 * bytes; ICO only for favicons; favicons at least 128x128. `subject` starts
 * the message ("file", "image_url", "image_url: the icon at ...").
 */
function checkImage(staged: StagedBlob, purpose: StoredPurpose, subject: string, param: string, contentType?: string | null): ImageInfo {
  const fail = (why: string) => new ApiError('invalid_value', `${subject} ${why}`, { param });
  if (staged.size === 0) throw fail('is empty.');
  const probe = probeImage(staged.head, staged.size);
  if (!probe.ok) {
    if (probe.detected !== null) throw fail(`is a ${probe.detected.toUpperCase()} image; accepted types are ${acceptedNames(purpose)}.`);
    const served = contentType ? ` (served as ${contentType.split(';')[0]?.trim()})` : '';
    throw fail(`is not an image${served}; send ${acceptedNames(purpose)}.`);
  }
  const image = probe.image;
  if (image.type === 'ico' && purpose !== 'account_favicon') {
    throw fail(`is an ICO image; accepted types are ${acceptedNames(purpose)} (ICO only for account_favicon).`);
  }
  if (purpose === 'account_favicon' && (image.width < FAVICON_MIN_PIXELS || image.height < FAVICON_MIN_PIXELS)) {
    throw fail(
      `is a ${image.width}x${image.height} ${IMAGE_TYPE_NAMES[image.type]}; an account_favicon must be at least ${FAVICON_MIN_PIXELS}x${FAVICON_MIN_PIXELS} pixels.`,
    );
  }
  return image;
}

/** `POST /upload`, multipart: a `file` part and an optional `purpose` field. */
export async function uploadImageForm(deps: UploadDeps, accountId: string, parts: AsyncIterable<FormPart>): Promise<UploadResult> {
  const form = await readUploadForm(parts, { dataDir: deps.config.dataDir, maxBytes: deps.config.uploadMaxBytes, fields: ['purpose'] });
  try {
    const purpose = parseOrThrow(FormImagePurpose, form.fields.get('purpose'), ['purpose']);
    const image = checkImage(form.file, purpose, 'file', 'file');
    return await saveFile(deps, accountId, form.file, {
      purpose,
      filename: form.file.filename,
      mimeType: image.mimeType,
      width: image.width,
      height: image.height,
      sourceUrl: null,
    });
  } finally {
    await discardStaged(form.file);
  }
}

/** `POST /uploads`: a UTF-8 CSV or TXT customer list with `purpose=custom_audience`. */
export async function uploadAudienceForm(deps: UploadDeps, accountId: string, parts: AsyncIterable<FormPart>): Promise<UploadResult> {
  const form = await readUploadForm(parts, { dataDir: deps.config.dataDir, maxBytes: deps.config.uploadMaxBytes, fields: ['purpose'] });
  try {
    const rawPurpose = form.fields.get('purpose');
    if (rawPurpose === undefined) {
      throw new ApiError('missing_required_parameter', 'Missing required parameter: purpose (custom_audience).', { param: 'purpose' });
    }
    const purpose = parseOrThrow(AudiencePurpose, rawPurpose, ['purpose']);
    const fail = (why: string) => new ApiError('invalid_value', `file ${why}`, { param: 'file' });
    if (form.file.size === 0) throw fail('is empty.');
    const text = await probeTextFile(form.file.tempPath, form.file.filename);
    if (!text.ok) {
      if (text.problem === 'empty') throw fail('holds only white space; send one identifier per line, or a CSV.');
      if (text.problem === 'nul_bytes') throw fail('contains NUL bytes; it must be a UTF-8 CSV or TXT list (not UTF-16 or a binary file).');
      throw fail('is not valid UTF-8 text; send a UTF-8 CSV or TXT list.');
    }
    return await saveFile(deps, accountId, form.file, {
      purpose,
      filename: form.file.filename,
      mimeType: text.mimeType,
      width: null,
      height: null,
      sourceUrl: null,
    });
  } finally {
    await discardStaged(form.file);
  }
}

interface Fetched {
  staged: StagedBlob;
  resource: FetchedResource;
}

/** Fetches into a staged blob; refusals become 400 `invalid_value` on `image_url`, prefixed with `subject`. */
async function fetchStaged(deps: UploadDeps, url: URL, signal: AbortSignal, subject: string, accept?: string): Promise<Fetched> {
  const { config } = deps;
  const writer = await BlobWriter.create(config.dataDir, config.uploadMaxBytes);
  try {
    const resource = await safeFetch(url, writer, {
      allowPrivate: config.fetchAllowPrivate,
      maxBytes: config.uploadMaxBytes,
      signal,
      timeoutMs: config.fetchTimeoutMs,
      ...(accept === undefined ? {} : { accept }),
    });
    return { staged: await writer.finish(), resource };
  } catch (err) {
    await writer.discard();
    if (err instanceof FetchRefused) throw new ApiError('invalid_value', `${subject} ${err.reason}.`, { param: 'image_url', cause: err });
    throw err;
  }
}

/** The file name a URL suggests: its last path segment, if any. */
function filenameOf(url: URL): string | null {
  const last = url.pathname.split('/').pop() ?? '';
  try {
    return cleanFilename(decodeURIComponent(last));
  } catch {
    return cleanFilename(last);
  }
}

/**
 * `POST /upload` with JSON `{image_url, purpose?}`. For favicons the URL may
 * be a web page: its declared icon (or /favicon.ico) is fetched instead (spec
 * "Files"). One deadline, `fetchTimeoutMs`, covers the page and the icon.
 */
export async function uploadImageFromUrl(deps: UploadDeps, accountId: string, raw: unknown): Promise<UploadResult> {
  const input = parseOrThrow(UrlUploadInput, raw ?? {});
  const signal = AbortSignal.timeout(deps.config.fetchTimeoutMs);
  const favicon = input.purpose === 'account_favicon';
  let subject = 'image_url';
  let fetched = await fetchStaged(deps, new URL(input.image_url), signal, subject, favicon ? 'image/*,text/html;q=0.8,*/*;q=0.5' : undefined);
  try {
    if (favicon && !probeImage(fetched.staged.head, fetched.staged.size).ok && looksLikeHtml(fetched.resource.contentType, fetched.staged.head)) {
      // The page's <head> sits at its start; the staged head (512 KiB) is all we look at.
      const page = fetched.staged.head.toString('utf8');
      const iconUrl = chooseIconUrl(page, fetched.resource.url);
      await discardStaged(fetched.staged);
      subject = `image_url: the icon at ${iconUrl.href}`;
      fetched = await fetchStaged(deps, iconUrl, signal, subject);
    }
    const image = checkImage(fetched.staged, input.purpose, subject, 'image_url', fetched.resource.contentType);
    return await saveFile(deps, accountId, fetched.staged, {
      purpose: input.purpose,
      filename: filenameOf(fetched.resource.url),
      mimeType: image.mimeType,
      width: image.width,
      height: image.height,
      // Where these bytes came from: after redirects and icon resolution.
      sourceUrl: fetched.resource.url.href,
    });
  } finally {
    await discardStaged(fetched.staged);
  }
}
