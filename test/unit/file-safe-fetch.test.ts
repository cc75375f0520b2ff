import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress } from '../../src/domain/files/address-vetting.js';
import { FetchRefused, safeFetch, type SafeFetchOptions } from '../../src/domain/files/safe-fetch.js';
import { IMAGES, startImageServer, type ImageServer } from '../fixtures/image-server.js';

const MAX = 64 * 1024;
let server: ImageServer;
beforeAll(async () => {
  server = await startImageServer({ oversize: 3 * MAX });
});
afterAll(() => server.close());

/** Collects what safeFetch writes. */
function memorySink() {
  const chunks: Buffer[] = [];
  return {
    chunks,
    bytes: () => Buffer.concat(chunks),
    write: async (chunk: Buffer) => {
      chunks.push(chunk);
    },
  };
}

// The test server is on 127.0.0.1; this policy lets exactly that address through and vets the rest as usual.
const onlyTestServer = (ip: string) => (ip === '127.0.0.1' ? null : classifyAddress(ip));

function options(overrides: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  const timeoutMs = overrides.timeoutMs ?? 2000;
  return { allowPrivate: false, vet: onlyTestServer, maxBytes: MAX, timeoutMs, signal: AbortSignal.timeout(timeoutMs), ...overrides };
}

async function refusal(url: string, overrides: Partial<SafeFetchOptions> = {}): Promise<string> {
  try {
    await safeFetch(new URL(url), memorySink(), options(overrides));
  } catch (err) {
    if (err instanceof FetchRefused) return err.reason;
    throw err;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('safeFetch', () => {
  it('fetches a body into the sink and reports where it came from', async () => {
    const sink = memorySink();
    const got = await safeFetch(new URL(`${server.url}/img/big.png`), sink, options());
    expect(got).toEqual({ url: new URL(`${server.url}/img/big.png`), contentType: 'image/png', size: IMAGES.big.length });
    expect(sink.bytes().equals(IMAGES.big)).toBe(true);
  });

  it('follows up to three redirects, each one vetted, and reports the final URL', async () => {
    const got = await safeFetch(new URL(`${server.url}/redirect/3`), memorySink(), options());
    expect(got.url.href).toBe(`${server.url}/img/big.png`);
    const relative = await safeFetch(new URL(`${server.url}/redirect/relative`), memorySink(), options());
    expect(relative.url.href).toBe(`${server.url}/img/photo.jpg`);
    expect(await refusal(`${server.url}/redirect/4`)).toBe('redirects more than 3 times');
    expect(await refusal(`${server.url}/redirect/loop`)).toBe('redirects more than 3 times');
    expect(await refusal(`${server.url}/redirect/nowhere`)).toBe('returned HTTP 302 without a Location header');
  });

  it('refuses a redirect to a private or non-http address', async () => {
    expect(await refusal(`${server.url}/redirect/private`)).toBe(
      'redirects to http://10.0.0.1/img/big.png, which resolves to a private address (private network)',
    );
    expect(await refusal(`${server.url}/redirect/loopback`)).toMatch(/^redirects to http:\/\/127\.0\.0\.2:\d+\/img\/big\.png, which resolves to a private address \(loopback\)$/);
    expect(await refusal(`${server.url}/redirect/ftp`)).toBe('redirects to ftp://files.example/a.png, which is not an http or https URL (ftp:)');
  });

  it('refuses private addresses, literal or resolved, unless allowPrivate is on', async () => {
    const strict = { vet: undefined };
    expect(await refusal(`${server.url}/img/big.png`, strict)).toBe('resolves to a private address (loopback)');
    expect(await refusal(`http://localhost:${server.port}/img/big.png`, strict)).toBe('resolves to a private address (loopback)');
    expect(await refusal(`http://[::ffff:127.0.0.1]:${server.port}/img/big.png`, strict)).toBe('resolves to a private address (loopback)');
    expect(await refusal(`http://[::1]:${server.port}/`, strict)).toBe('resolves to a private address (loopback)');
    expect(await refusal('http://169.254.169.254/latest/meta-data/', strict)).toBe('resolves to a private address (link-local)');
    expect(await refusal('http://0x7f000001/', strict)).toBe('resolves to a private address (loopback)');
    expect(await refusal('http://0.0.0.0/', strict)).toBe('resolves to a private address (unspecified)');
    const allowed = await safeFetch(new URL(`http://localhost:${server.port}/img/big.png`), memorySink(), options({ vet: undefined, allowPrivate: true }));
    expect(allowed.size).toBe(IMAGES.big.length);
  });

  it('refuses other schemes, credentials and unresolvable hosts', async () => {
    expect(await refusal('file:///etc/passwd')).toBe('is not an http or https URL (file:)');
    expect(await refusal(`http://user:secret@127.0.0.1:${server.port}/img/big.png`)).toBe('must not contain a user name or password');
    expect(await refusal('http://no-such-host.invalid/')).toBe('has a host name that does not resolve (no-such-host.invalid)');
  });

  it('reports HTTP errors and refused connections', async () => {
    expect(await refusal(`${server.url}/nope`)).toBe('returned HTTP 404');
    expect(await refusal(`${server.url}/error`)).toBe('returned HTTP 500');
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await refusal(`http://127.0.0.1:${port}/`)).toBe('could not be reached (connection refused)');
  });

  it('caps the size, by Content-Length and while streaming', async () => {
    expect(await refusal(`${server.url}/huge`)).toBe(`is larger than the ${MAX}-byte limit`);
    const sink = memorySink();
    await expect(safeFetch(new URL(`${server.url}/huge-chunked`), sink, options())).rejects.toThrow(`is larger than the ${MAX}-byte limit`);
    expect(sink.bytes().length).toBeLessThanOrEqual(MAX);
  });

  it('ends the whole fetch at the deadline: no answer, or a stalled body', async () => {
    const started = Date.now();
    expect(await refusal(`${server.url}/slow`, { timeoutMs: 300 })).toBe('timed out after 300 ms');
    expect(await refusal(`${server.url}/stall`, { timeoutMs: 300 })).toBe('timed out after 300 ms');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('decodes a compressed body and caps its decoded size', async () => {
    const sink = memorySink();
    await safeFetch(new URL(`${server.url}/img/gzipped.png`), sink, options());
    expect(sink.bytes().equals(IMAGES.big)).toBe(true);
    expect(await refusal(`${server.url}/img/gzipped.png`, { maxBytes: 100 })).toBe('is larger than the 100-byte limit');
  });

  it('lets failures of the sink through as they are (they are not the client’s)', async () => {
    const broken = { write: async () => Promise.reject(new Error('disk full')) };
    await expect(safeFetch(new URL(`${server.url}/img/big.png`), broken, options())).rejects.toThrow('disk full');
  });
});
