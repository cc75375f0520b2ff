import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Config } from '../../src/config.js';
import { fileContentUrl, requireFile } from '../../src/domain/files/files.js';
import { ApiError } from '../../src/errors/api-error.js';
import { IMAGES, startImageServer, type ImageServer } from '../fixtures/image-server.js';
import { gif, ico, jpeg, png, svg } from '../fixtures/images.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, makeAccount, testConfig } from '../support/context.js';
import { FileRecord } from '../../src/store/repositories/file-repository.js';

const MAX_BYTES = 200_000;

type FilesApp = TestApp & { config: Config };

/** The real app with its own fetch settings; `config` is rebuilt from the same environment for assertions. */
async function startFilesApp(env: Record<string, string>): Promise<FilesApp> {
  const app = await startTestApp({ env });
  return Object.assign(app, { config: testConfig(app.dataDir, env) });
}

const WireFile = z
  .object({
    id: z.string().regex(/^file_[a-z0-9]{24}$/),
    object: z.literal('file'),
    purpose: z.enum(['account_favicon', 'custom_audience']).nullable(),
    filename: z.string().nullable(),
    mime_type: z.string(),
    size_bytes: z.number().int().nonnegative(),
    width: z.number().int().positive().nullable(),
    height: z.number().int().positive().nullable(),
    created_at: z.number().int(),
  })
  .strict();
const Uploaded = z.object({ file_id: z.string().regex(/^file_[a-z0-9]{24}$/) }).strict();
const ErrorBody = z.object({ error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }).strict() }).strict();


const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A multipart body as a browser or fetch would send it, for inject. */
async function formBody(parts: Record<string, string | { bytes: Buffer; filename?: string; type?: string }>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([value.bytes], { type: value.type ?? 'application/octet-stream' }), value.filename ?? 'upload.bin');
  }
  const request = new Request('http://multipart.local/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type') as string };
}

let images: ImageServer;
let t: FilesApp;
let strict: FilesApp;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };
let strictAccount: { accountId: string; key: string };

beforeAll(async () => {
  images = await startImageServer({ oversize: MAX_BYTES + 100_000 });
  t = await startFilesApp({ ADSVC_FETCH_ALLOW_PRIVATE: '1', ADSVC_FETCH_TIMEOUT_MS: '3000', ADSVC_UPLOAD_MAX_BYTES: String(MAX_BYTES) });
  // Defaults: the address check is on.
  strict = await startFilesApp({});
  a = await makeAccount(t);
  b = await makeAccount(t);
  strictAccount = await makeAccount(strict);
});
afterAll(async () => {
  await t?.close();
  await strict?.close();
  await images?.close();
});

const uploadUrl = (app: FilesApp, key: string, payload: object) =>
  app.app.inject({ method: 'POST', url: '/v1/upload', headers: bearer(key), payload });

async function uploadForm(url: '/v1/upload' | '/v1/uploads', key: string, parts: Parameters<typeof formBody>[0]) {
  const { payload, contentType } = await formBody(parts);
  return t.app.inject({ method: 'POST', url, headers: { ...bearer(key), 'content-type': contentType }, payload });
}

async function fileOf(id: string, key = a.key) {
  const res = await t.app.inject({ url: `/v1/files/${id}`, headers: bearer(key) });
  expect(res.statusCode).toBe(200);
  return WireFile.parse(res.json());
}

async function rowOf(id: string) {
  return FileRecord.parse(await t.store.get('SELECT * FROM files WHERE id = $id', { id }));
}

function expectError(res: { statusCode: number; json(): unknown }, status: number, code: string, param: string | null, message?: RegExp) {
  expect(res.statusCode).toBe(status);
  const body = ErrorBody.parse(res.json());
  expect(body.error).toMatchObject({ type: 'invalid_request_error', code, param });
  if (message) expect(body.error.message).toMatch(message);
  return body.error;
}

describe('POST /v1/upload with image_url', () => {
  it('fetches an image, stores its bytes content-addressed and records the file', async () => {
    const res = await uploadUrl(t, a.key, { image_url: `${images.url}/img/big.png` });
    expect(res.statusCode).toBe(200);
    const { file_id } = Uploaded.parse(res.json());
    expect(await fileOf(file_id)).toEqual({
      id: file_id,
      object: 'file',
      purpose: null,
      filename: 'big.png',
      mime_type: 'image/png',
      size_bytes: IMAGES.big.length,
      width: 256,
      height: 256,
      created_at: Math.floor(t.clock.nowMs() / 1000),
    });
    const row = await rowOf(file_id);
    const sha = sha256(IMAGES.big);
    expect(row).toMatchObject({
      ad_account_id: a.accountId,
      sha256: sha,
      storage_path: `files/${sha.slice(0, 2)}/${sha}`,
      source_url: `${images.url}/img/big.png`,
      created_at_ms: t.clock.nowMs(),
    });
    expect(readFileSync(join(t.dataDir, row.storage_path)).equals(IMAGES.big)).toBe(true);
  });

  it.each([
    ['/img/photo.jpg', 'image/jpeg', 256, 192],
    ['/img/anim.gif', 'image/gif', 256, 256],
    // The bytes decide, not the Content-Type the server claims or leaves out.
    ['/img/mislabelled', 'image/jpeg', 256, 192],
    ['/img/no-type', 'image/png', 256, 256],
    ['/img/gzipped.png', 'image/png', 256, 256],
  ])('%s is stored as %s %ix%i', async (path, mime, width, height) => {
    const res = await uploadUrl(t, a.key, { image_url: `${images.url}${path}`, purpose: null });
    expect(res.statusCode).toBe(200);
    expect(await fileOf(Uploaded.parse(res.json()).file_id)).toMatchObject({ mime_type: mime, width, height, purpose: null });
  });

  it('follows up to three redirects and records where the bytes came from', async () => {
    const res = await uploadUrl(t, a.key, { image_url: `${images.url}/redirect/3` });
    expect(res.statusCode).toBe(200);
    expect((await rowOf(Uploaded.parse(res.json()).file_id)).source_url).toBe(`${images.url}/img/big.png`);
  });

  it.each([
    ['/redirect/4', /^image_url redirects more than 3 times\.$/],
    ['/nope', /^image_url returned HTTP 404\.$/],
    ['/error', /^image_url returned HTTP 500\.$/],
    ['/img/fake.png', /^image_url is not an image \(served as image\/png\); send PNG, JPEG, GIF or WebP\.$/],
    ['/page.txt', /^image_url is not an image \(served as text\/plain\)/],
    ['/img/empty.png', /^image_url is empty\.$/],
    ['/img/vector.svg', /^image_url is a SVG image; accepted types are PNG, JPEG, GIF or WebP\.$/],
    ['/favicon.ico', /^image_url is an ICO image; .*ICO only for account_favicon/],
    ['/huge', new RegExp(`^image_url is larger than the ${MAX_BYTES}-byte limit\\.$`)],
    ['/huge-chunked', new RegExp(`^image_url is larger than the ${MAX_BYTES}-byte limit\\.$`)],
    ['/slow', /^image_url timed out after 3000 ms\.$/],
    ['/stall', /^image_url timed out after 3000 ms\.$/],
    ['/redirect/ftp', /^image_url redirects to ftp:\/\/files\.example\/a\.png, which is not an http or https URL/],
  ])('%s -> 400 invalid_value on image_url', async (path, message) => {
    expectError(await uploadUrl(t, a.key, { image_url: `${images.url}${path}` }), 400, 'invalid_value', 'image_url', message);
  });

  it('refuses loopback and private addresses when fetchAllowPrivate is off (the default)', async () => {
    expect(strict.config.fetchAllowPrivate).toBe(false);
    const hitsBefore = [...images.hits.values()].reduce((x, y) => x + y, 0);
    const cases = [
      `${images.url}/img/big.png`,
      `http://localhost:${images.port}/img/big.png`,
      `http://[::ffff:127.0.0.1]:${images.port}/img/big.png`,
      `http://[::1]:${images.port}/img/big.png`,
      'http://10.0.0.1/a.png',
      'http://169.254.169.254/latest/meta-data/',
    ];
    for (const url of cases) {
      expectError(await uploadUrl(strict, strictAccount.key, { image_url: url }), 400, 'invalid_value', 'image_url', /^image_url resolves to a private address/);
    }
    const favicon = await uploadUrl(strict, strictAccount.key, { image_url: `${images.url}/site/`, purpose: 'account_favicon' });
    expectError(favicon, 400, 'invalid_value', 'image_url', /^image_url resolves to a private address \(loopback\)/);
    // Refused before connecting: the local server saw none of it.
    expect([...images.hits.values()].reduce((x, y) => x + y, 0)).toBe(hitsBefore);
  });

  it.each([
    [{}, 'missing_required_parameter', 'image_url'],
    [{ image_url: 42 }, 'invalid_type', 'image_url'],
    [{ image_url: 'ftp://files.example/a.png' }, 'invalid_value', 'image_url'],
    [{ image_url: 'not a url' }, 'invalid_value', 'image_url'],
    [{ image_url: `https://x.example/${'a'.repeat(2100)}` }, 'string_above_max_length', 'image_url'],
    [{ image_url: 'https://x.example/a.png', purpose: 'custom_audience' }, 'invalid_value', 'purpose'],
    [{ image_url: 'https://x.example/a.png', purpose: 'banner' }, 'invalid_value', 'purpose'],
    [{ image_url: 'https://x.example/a.png', file: 'x' }, 'unknown_parameter', 'file'],
  ])('%j -> 400 %s', async (payload, code, param) => {
    const res = await uploadUrl(t, a.key, payload);
    const error = expectError(res, 400, code, param);
    if ('purpose' in payload && payload.purpose === 'custom_audience') expect(error.message).toMatch(/POST \/v1\/uploads/);
  });
});

describe('favicons (purpose account_favicon)', () => {
  it('takes an image URL of at least 128x128', async () => {
    const res = await uploadUrl(t, a.key, { image_url: `${images.url}/img/big.png`, purpose: 'account_favicon' });
    expect(res.statusCode).toBe(200);
    expect(await fileOf(Uploaded.parse(res.json()).file_id)).toMatchObject({ purpose: 'account_favicon', width: 256, height: 256 });
  });

  it('refuses a smaller image', async () => {
    expectError(
      await uploadUrl(t, a.key, { image_url: `${images.url}/img/small.png`, purpose: 'account_favicon' }),
      400,
      'invalid_value',
      'image_url',
      /^image_url is a 64x64 PNG; an account_favicon must be at least 128x128 pixels\.$/,
    );
  });

  it('resolves a website to its largest declared icon', async () => {
    const res = await uploadUrl(t, a.key, { image_url: `${images.url}/site/`, purpose: 'account_favicon' });
    expect(res.statusCode).toBe(200);
    const id = Uploaded.parse(res.json()).file_id;
    expect(await fileOf(id)).toMatchObject({ purpose: 'account_favicon', mime_type: 'image/png', width: 256, height: 256, filename: 'big.png' });
    expect((await rowOf(id)).source_url).toBe(`${images.url}/img/big.png`);
  });

  it('takes the first icon when none declares a size', async () => {
    const res = await uploadUrl(t, a.key, { image_url: `${images.url}/site-unsized/`, purpose: 'account_favicon' });
    expect(res.statusCode).toBe(200);
    expect(await fileOf(Uploaded.parse(res.json()).file_id)).toMatchObject({ mime_type: 'image/jpeg', width: 256, height: 192 });
  });

  it('falls back to /favicon.ico (ICO is accepted for favicons)', async () => {
    const res = await uploadUrl(t, a.key, { image_url: `${images.url}/site-plain/`, purpose: 'account_favicon' });
    expect(res.statusCode).toBe(200);
    const id = Uploaded.parse(res.json()).file_id;
    expect(await fileOf(id)).toMatchObject({ mime_type: 'image/x-icon', width: 256, height: 256, filename: 'favicon.ico' });
    expect((await rowOf(id)).source_url).toBe(`${images.url}/favicon.ico`);
  });

  it('says which icon failed', async () => {
    expectError(
      await uploadUrl(t, a.key, { image_url: `${images.url}/site-small/`, purpose: 'account_favicon' }),
      400,
      'invalid_value',
      'image_url',
      new RegExp(`^image_url: the icon at ${images.url}/img/small.png is a 64x64 PNG; an account_favicon must be at least 128x128 pixels\\.$`),
    );
    expectError(
      await uploadUrl(t, a.key, { image_url: `${images.url}/site-broken/`, purpose: 'account_favicon' }),
      400,
      'invalid_value',
      'image_url',
      new RegExp(`^image_url: the icon at ${images.url}/missing.png returned HTTP 404\\.$`),
    );
  });

  it('does not resolve pages for creative images', async () => {
    expectError(await uploadUrl(t, a.key, { image_url: `${images.url}/site/` }), 400, 'invalid_value', 'image_url', /is not an image \(served as text\/html\)/);
  });

  it('can be assigned as the brand favicon; lookups check the purpose', async () => {
    const res = await uploadUrl(t, a.key, { image_url: `${images.url}/img/big.png`, purpose: 'account_favicon' });
    const id = Uploaded.parse(res.json()).file_id;
    expect((await requireFile(t, a.accountId, id, { purpose: 'account_favicon', param: 'favicon_file_id' })).id).toBe(id);
    const wrong = await requireFile(t, a.accountId, id, { purpose: null, param: 'creative.file_id' }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ApiError);
    expect(wrong).toMatchObject({ status: 400, code: 'invalid_value', param: 'creative.file_id' });
    const missing = await requireFile(t, b.accountId, id, { param: 'favicon_file_id' }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'resource_missing', param: 'favicon_file_id' });
  });
});

describe('POST /v1/upload with multipart/form-data', () => {
  it('stores an image by its real type, whatever the part claims', async () => {
    const bytes = jpeg(300, 150);
    const res = await uploadForm('/v1/upload', a.key, { file: { bytes, filename: 'C:\\fakepath\\photo.png', type: 'image/png' } });
    expect(res.statusCode).toBe(200);
    const id = Uploaded.parse(res.json()).file_id;
    expect(await fileOf(id)).toMatchObject({ purpose: null, filename: 'photo.png', mime_type: 'image/jpeg', size_bytes: bytes.length, width: 300, height: 150 });
    expect((await rowOf(id)).source_url).toBeNull();
  });

  it.each([
    ['a 256x256 PNG favicon', { file: { bytes: png(256, 256, [1, 2, 3]), filename: 'icon.png' }, purpose: 'account_favicon' }, 'account_favicon'],
    ['a 128x128 GIF favicon (the minimum)', { file: { bytes: gif(128, 128), filename: 'icon.gif' }, purpose: 'account_favicon' }, 'account_favicon'],
    ['an ICO favicon', { file: { bytes: ico(256), filename: 'favicon.ico' }, purpose: 'account_favicon' }, 'account_favicon'],
    ['a 64x64 creative (no minimum)', { file: { bytes: png(64, 64, [4, 5, 6]), filename: 'small.png' } }, null],
    ['an empty purpose (a creative)', { file: { bytes: png(64, 64, [4, 5, 6]), filename: 'small.png' }, purpose: '' }, null],
  ])('accepts %s', async (_name, parts, purpose) => {
    const res = await uploadForm('/v1/upload', a.key, parts);
    expect(res.statusCode).toBe(200);
    expect((await fileOf(Uploaded.parse(res.json()).file_id)).purpose).toBe(purpose);
  });

  it.each([
    ['a 64x64 favicon', { file: { bytes: png(64, 64) }, purpose: 'account_favicon' }, 400, 'invalid_value', 'file', /^file is a 64x64 PNG; an account_favicon must be at least 128x128 pixels\.$/],
    ['a 256x64 favicon', { file: { bytes: png(256, 64) }, purpose: 'account_favicon' }, 400, 'invalid_value', 'file', /at least 128x128/],
    ['an empty file', { file: { bytes: Buffer.alloc(0) } }, 400, 'invalid_value', 'file', /^file is empty\.$/],
    ['text', { file: { bytes: Buffer.from('hello'), type: 'image/png', filename: 'x.png' } }, 400, 'invalid_value', 'file', /^file is not an image; send PNG, JPEG, GIF or WebP\.$/],
    ['an SVG', { file: { bytes: svg(200, 200), type: 'image/svg+xml' } }, 400, 'invalid_value', 'file', /is a SVG image/],
    ['an ICO creative', { file: { bytes: ico(256) } }, 400, 'invalid_value', 'file', /ICO only for account_favicon/],
    ['purpose custom_audience', { file: { bytes: png(8, 8) }, purpose: 'custom_audience' }, 400, 'invalid_value', 'purpose', /POST \/v1\/uploads/],
    ['an unknown purpose', { file: { bytes: png(8, 8) }, purpose: 'banner' }, 400, 'invalid_value', 'purpose', undefined],
    ['no file', { purpose: 'account_favicon' }, 400, 'missing_required_parameter', 'file', undefined],
    ['file as a text field', { file: 'abc' }, 400, 'invalid_type', 'file', undefined],
    ['an unknown field', { file: { bytes: png(8, 8) }, caption: 'x' }, 400, 'unknown_parameter', 'caption', undefined],
    ['an oversized file', { file: { bytes: Buffer.concat([png(8, 8), Buffer.alloc(MAX_BYTES)]) } }, 413, 'request_too_large', 'file', /200000-byte/],
  ])('refuses %s', async (_name, parts, status, code, param, message) => {
    expectError(await uploadForm('/v1/upload', a.key, parts as Parameters<typeof formBody>[0]), status, code, param, message);
  });

  it('takes a file of exactly the size limit', async () => {
    const head = png(300, 300, [9, 9, 9]);
    const bytes = Buffer.concat([head, Buffer.alloc(MAX_BYTES - head.length)]);
    const res = await uploadForm('/v1/upload', a.key, { file: { bytes, filename: 'padded.png' } });
    expect(res.statusCode).toBe(200);
    expect((await fileOf(Uploaded.parse(res.json()).file_id)).size_bytes).toBe(MAX_BYTES);
  });

  it('refuses two file parts', async () => {
    const form = new FormData();
    form.append('file', new Blob([png(8, 8)]), 'a.png');
    form.append('file', new Blob([png(9, 9)]), 'b.png');
    const request = new Request('http://multipart.local/', { method: 'POST', body: form });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/upload',
      headers: { ...bearer(a.key), 'content-type': request.headers.get('content-type') as string },
      payload: Buffer.from(await request.arrayBuffer()),
    });
    expectError(res, 400, 'invalid_value', 'file', /exactly one file/);
  });

  it('answers a malformed body and a foreign content type with the error envelope', async () => {
    const broken = await t.app.inject({
      method: 'POST',
      url: '/v1/upload',
      headers: { ...bearer(a.key), 'content-type': 'multipart/form-data; boundary=xyz' },
      payload: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc',
    });
    expectError(broken, 400, 'invalid_value', null, /multipart\/form-data body is malformed/);
    const raw = await t.app.inject({ method: 'POST', url: '/v1/upload', headers: { ...bearer(a.key), 'content-type': 'image/png' }, payload: png(8, 8) });
    expectError(raw, 415, 'unsupported_media_type', null, /application\/json or multipart\/form-data/);
  });

  it('shares one blob between identical uploads and leaves no temp files', async () => {
    const bytes = png(200, 200, [77, 88, 99]);
    const first = Uploaded.parse((await uploadForm('/v1/upload', a.key, { file: { bytes, filename: 'one.png' } })).json()).file_id;
    const second = Uploaded.parse((await uploadForm('/v1/upload', b.key, { file: { bytes, filename: 'two.png' }, purpose: 'account_favicon' })).json()).file_id;
    expect(first).not.toBe(second);
    const [r1, r2] = [await rowOf(first), await rowOf(second)];
    expect(r1.storage_path).toBe(r2.storage_path);
    expect(r1.sha256).toBe(sha256(bytes));
    const dir = join(t.dataDir, 'files', r1.sha256.slice(0, 2));
    expect(readdirSync(dir).filter((n) => n === r1.sha256)).toHaveLength(1);
    expect(readFileSync(join(t.dataDir, r1.storage_path)).equals(bytes)).toBe(true);
    expect(readdirSync(join(t.dataDir, 'files', '.tmp'))).toEqual([]);
  });
});

describe('POST /v1/uploads (custom audience lists)', () => {
  it.each([
    ['customers.csv', 'email,phone\nada@example.com,+4912345\n', 'text/csv'],
    ['emails.txt', 'ada@example.com\nbob@example.com\n', 'text/plain'],
    ['export', 'email;name\nü@example.com;Jürgen\n', 'text/csv'],
  ])('stores %s as %s with its filename and exact size', async (filename, text, mime) => {
    const bytes = Buffer.from(text);
    const res = await uploadForm('/v1/uploads', a.key, { purpose: 'custom_audience', file: { bytes, filename, type: 'application/vnd.ms-excel' } });
    expect(res.statusCode).toBe(200);
    const id = Uploaded.parse(res.json()).file_id;
    expect(await fileOf(id)).toMatchObject({ purpose: 'custom_audience', filename, mime_type: mime, size_bytes: bytes.length, width: null, height: null });
    const content = await t.app.inject({ url: `/v1/files/${id}/content`, headers: bearer(a.key) });
    expect(content.statusCode).toBe(200);
    expect(content.headers['content-type']).toBe(`${mime}; charset=utf-8`);
    expect(content.headers['content-disposition']).toMatch(/^attachment; filename=/);
    expect(content.rawPayload.equals(bytes)).toBe(true);
  });

  it.each([
    ['no purpose', { file: { bytes: Buffer.from('a@b.c\n'), filename: 'l.csv' } }, 400, 'missing_required_parameter', 'purpose'],
    ['purpose account_favicon', { file: { bytes: Buffer.from('a@b.c\n'), filename: 'l.csv' }, purpose: 'account_favicon' }, 400, 'invalid_value', 'purpose'],
    ['an empty file', { file: { bytes: Buffer.alloc(0), filename: 'l.csv' }, purpose: 'custom_audience' }, 400, 'invalid_value', 'file'],
    ['white space only', { file: { bytes: Buffer.from('\n \n'), filename: 'l.csv' }, purpose: 'custom_audience' }, 400, 'invalid_value', 'file'],
    ['Latin-1 text', { file: { bytes: Buffer.from([0x4a, 0xfc, 0x72, 0x67, 0x65, 0x6e, 0x0a]), filename: 'l.csv' }, purpose: 'custom_audience' }, 400, 'invalid_value', 'file'],
    ['a binary file', { file: { bytes: png(16, 16), filename: 'l.csv' }, purpose: 'custom_audience' }, 400, 'invalid_value', 'file'],
    ['an oversized list', { file: { bytes: Buffer.alloc(MAX_BYTES + 1, 'a'), filename: 'l.txt' }, purpose: 'custom_audience' }, 413, 'request_too_large', 'file'],
  ])('refuses %s', async (_name, parts, status, code, param) => {
    expectError(await uploadForm('/v1/uploads', a.key, parts as Parameters<typeof formBody>[0]), status, code, param);
  });

  it('takes multipart only', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/uploads', headers: bearer(a.key), payload: { purpose: 'custom_audience' } });
    expectError(res, 415, 'unsupported_media_type', null, /multipart\/form-data/);
  });
});

describe('GET /v1/files/{id} and /content', () => {
  let id: string;
  beforeAll(async () => {
    id = Uploaded.parse((await uploadUrl(t, a.key, { image_url: `${images.url}/img/photo.jpg` })).json()).file_id;
  });

  it('serves the bytes with their type', async () => {
    const res = await t.app.inject({ url: `/v1/files/${id}/content`, headers: bearer(a.key) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['content-length']).toBe(String(IMAGES.photo.length));
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.rawPayload.equals(IMAGES.photo)).toBe(true);
  });

  it('hides files of other accounts and unknown ids', async () => {
    for (const url of [`/v1/files/${id}`, `/v1/files/${id}/content`, '/v1/files/file_doesnotexist', '/v1/files/file_doesnotexist/content']) {
      const res = await t.app.inject({ url, headers: bearer(url.includes('doesnotexist') ? a.key : b.key) });
      expectError(res, 404, 'resource_missing', null, /No such file/);
    }
  });

  it('needs an API key', async () => {
    for (const req of [
      { method: 'GET' as const, url: `/v1/files/${id}` },
      { method: 'GET' as const, url: `/v1/files/${id}/content` },
      { method: 'POST' as const, url: '/v1/upload', payload: { image_url: `${images.url}/img/big.png` } },
      { method: 'POST' as const, url: '/v1/uploads' },
    ]) {
      const res = await t.app.inject(req);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.type).toBe('authentication_error');
    }
  });

  it('builds content URLs from the public URL', () => {
    expect(fileContentUrl({ publicUrl: 'https://ads.example' }, 'file_abc')).toBe('https://ads.example/v1/files/file_abc/content');
    expect(fileContentUrl(t.config, id)).toBe(`${t.config.publicUrl}/v1/files/${id}/content`);
  });
});

describe('over real HTTP', () => {
  let base: string;
  beforeAll(async () => {
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });

  it('uploads with fetch + FormData, then reads the file back', async () => {
    const bytes = png(160, 160, [10, 200, 10]);
    const form = new FormData();
    form.append('purpose', 'account_favicon');
    form.append('file', new Blob([bytes], { type: 'image/png' }), 'logo.png');
    const res = await fetch(`${base}/v1/upload`, { method: 'POST', headers: bearer(a.key), body: form });
    expect(res.status).toBe(200);
    const { file_id } = Uploaded.parse(await res.json());
    const meta = WireFile.parse(await (await fetch(`${base}/v1/files/${file_id}`, { headers: bearer(a.key) })).json());
    expect(meta).toMatchObject({ purpose: 'account_favicon', filename: 'logo.png', mime_type: 'image/png', width: 160, height: 160, size_bytes: bytes.length });
    const content = await fetch(`${base}/v1/files/${file_id}/content`, { headers: bearer(a.key) });
    expect(content.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await content.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('uploads an audience list and an image URL', async () => {
    const form = new FormData();
    form.append('file', new Blob(['email\nada@example.com\n'], { type: 'text/csv' }), 'list.csv');
    form.append('purpose', 'custom_audience');
    const list = await fetch(`${base}/v1/uploads`, { method: 'POST', headers: bearer(a.key), body: form });
    expect(list.status).toBe(200);
    Uploaded.parse(await list.json());
    const byUrl = await fetch(`${base}/v1/upload`, {
      method: 'POST',
      headers: { ...bearer(a.key), 'content-type': 'application/json' },
      body: JSON.stringify({ image_url: `${images.url}/redirect/once` }),
    });
    expect(byUrl.status).toBe(200);
    Uploaded.parse(await byUrl.json());
  });

  it('answers an oversized upload with 413 and the envelope, not a reset connection', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(MAX_BYTES * 3, 1)]), 'big.png');
    form.append('purpose', 'account_favicon');
    const res = await fetch(`${base}/v1/upload`, { method: 'POST', headers: bearer(a.key), body: form });
    expect(res.status).toBe(413);
    expect(ErrorBody.parse(await res.json()).error).toMatchObject({ code: 'request_too_large', param: 'file' });
    expect(readdirSync(join(t.dataDir, 'files', '.tmp'))).toEqual([]);
  });
});

describe('stored files', () => {
  it('leave no temp files behind after every success and failure above', () => {
    expect(existsSync(join(t.dataDir, 'files', '.tmp'))).toBe(true);
    expect(readdirSync(join(t.dataDir, 'files', '.tmp'))).toEqual([]);
  });
});
