import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { classifyAddress, describeAddressKind, type AddressKind } from './address-vetting.js';

/**
 * A GET for a URL a client gave us, hardened against server-side request
 * forgery and resource exhaustion:
 * - http and https only, no credentials in the URL;
 * - the host is resolved first and every address vetted (address-vetting.ts);
 *   the socket then connects to those vetted addresses only, so a second DNS
 *   answer cannot swap in a private one (DNS rebinding);
 * - redirects are followed by hand, at most `maxRedirects`, each hop vetted again;
 * - the body is streamed and cut off past `maxBytes` (after decompression);
 * - one AbortSignal bounds the whole thing, DNS and redirects included.
 */

/** A fetch we refuse or that failed for a reason the client can act on; `reason` completes "image_url ...". */
export class FetchRefused extends Error {
  override readonly name = 'FetchRefused';
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Where the body goes; its own failures (a full disk) are ours, not the client's. */
export interface ByteSink {
  write(chunk: Buffer): Promise<void>;
}

export interface SafeFetchOptions {
  /** Skip the address check (tests fetching from 127.0.0.1); everything else still applies. */
  allowPrivate: boolean;
  maxBytes: number;
  /** The deadline of the whole operation; `timeoutMs` is what it was set to, for the message. */
  signal: AbortSignal;
  timeoutMs: number;
  maxRedirects?: number;
  accept?: string;
  /** The address policy: null lets an address through. Defaults to classifyAddress; tests narrow it. */
  vet?: (address: string) => AddressKind | null;
}

export interface FetchedResource {
  /** The URL the body came from, after redirects. */
  url: URL;
  contentType: string | null;
  size: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_MAX_REDIRECTS = 3;

class SinkFailure extends Error {
  override readonly name = 'SinkFailure';
}

function checkUrl(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefused(`is not an http or https URL (${url.protocol})`);
  if (url.username !== '' || url.password !== '') throw new FetchRefused('must not contain a user name or password');
  if (url.hostname === '') throw new FetchRefused('has no host');
}

/** Rejects when the signal fires; for steps (DNS) that take no signal themselves. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

async function resolveVetted(url: URL, opts: SafeFetchOptions): Promise<LookupAddress[]> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host);
  let addresses: LookupAddress[];
  if (literal !== 0) {
    addresses = [{ address: host, family: literal }];
  } else {
    try {
      addresses = await abortable(dnsLookup(host, { all: true, verbatim: true }), opts.signal);
    } catch (err) {
      if (opts.signal.aborted) throw err;
      throw new FetchRefused(`has a host name that does not resolve (${host})`);
    }
  }
  if (addresses.length === 0) throw new FetchRefused(`has a host name that does not resolve (${host})`);
  if (!opts.allowPrivate) {
    // Any non-public answer refuses the host: a name that mixes them is not one we trust.
    for (const a of addresses) {
      const kind = (opts.vet ?? classifyAddress)(a.address);
      if (kind !== null) throw new FetchRefused(`resolves to a private address (${describeAddressKind(kind)})`);
    }
  }
  return addresses;
}

/** Hands the socket the addresses we vetted instead of resolving the name again. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    const list = wanted.length > 0 ? wanted : addresses;
    if (options.all) callback(null, list);
    else callback(null, (list[0] as LookupAddress).address, (list[0] as LookupAddress).family);
  };
}

function request(url: URL, addresses: LookupAddress[], opts: SafeFetchOptions): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      {
        method: 'GET',
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: {
          'user-agent': 'adsvc-fetch/1 (+image upload)',
          accept: opts.accept ?? 'image/*;q=0.9,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
        // A fresh connection per request: a pooled socket may lead to another host's address.
        agent: false,
        lookup: pinnedLookup(addresses),
        signal: opts.signal,
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

function decoded(res: http.IncomingMessage): Readable {
  const encoding = (res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  switch (encoding) {
    case '':
    case 'identity':
      return res;
    case 'gzip':
    case 'x-gzip':
      return res.pipe(createGunzip());
    case 'deflate':
      return res.pipe(createInflate());
    case 'br':
      return res.pipe(createBrotliDecompress());
    default:
      res.destroy();
      throw new FetchRefused(`uses an unsupported content encoding (${encoding})`);
  }
}

async function readBody(res: http.IncomingMessage, sink: ByteSink, opts: SafeFetchOptions): Promise<number> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > opts.maxBytes && (res.headers['content-encoding'] ?? 'identity') === 'identity') {
    res.destroy();
    throw new FetchRefused(`is larger than the ${opts.maxBytes}-byte limit`);
  }
  const body = decoded(res);
  // A decompression stream does not see the response's abort; end it with the response.
  if (body !== res) res.once('error', (err) => body.destroy(err));
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > opts.maxBytes) throw new FetchRefused(`is larger than the ${opts.maxBytes}-byte limit`);
      try {
        await sink.write(chunk);
      } catch (err) {
        throw new SinkFailure('sink write failed', { cause: err });
      }
    }
  } finally {
    res.destroy();
    if (body !== res) body.destroy();
  }
  return size;
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'could not be reached (connection refused)',
  ECONNRESET: 'could not be fetched (connection reset)',
  EHOSTUNREACH: 'could not be reached (host unreachable)',
  ENETUNREACH: 'could not be reached (network unreachable)',
  ETIMEDOUT: 'could not be reached (connection timed out)',
  EPIPE: 'could not be fetched (connection closed)',
  Z_DATA_ERROR: 'sent a body that does not match its content encoding',
  Z_BUF_ERROR: 'sent a body that does not match its content encoding',
};

/** Turns what went wrong on the wire into a reason; anything else (our bugs) passes through. */
function explain(err: unknown, opts: SafeFetchOptions): unknown {
  if (err instanceof SinkFailure) return err.cause;
  if (opts.signal.aborted) return new FetchRefused(`timed out after ${opts.timeoutMs} ms`);
  if (err instanceof FetchRefused) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return err;
  const known = NETWORK_REASONS[code];
  if (known) return new FetchRefused(known);
  if (code.startsWith('HPE_')) return new FetchRefused('sent a malformed HTTP response');
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || /CERT|SELF_SIGNED/.test(code)) {
    return new FetchRefused(`could not be fetched securely (${code})`);
  }
  if (code.startsWith('E') || code.startsWith('ERR_')) return new FetchRefused(`could not be fetched (${code})`);
  return err;
}

/** Fetches `start` into `sink`; throws FetchRefused with a reason for anything the client caused. */
export async function safeFetch(start: URL, sink: ByteSink, opts: SafeFetchOptions): Promise<FetchedResource> {
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let url = start;
  for (let hop = 0; ; hop++) {
    let res: http.IncomingMessage;
    try {
      if (opts.signal.aborted) throw opts.signal.reason;
      checkUrl(url);
      const addresses = await resolveVetted(url, opts);
      res = await request(url, addresses, opts);
    } catch (err) {
      const reason = explain(err, opts);
      if (reason instanceof FetchRefused && hop > 0 && !opts.signal.aborted) {
        throw new FetchRefused(`redirects to ${url.href}, which ${reason.reason}`);
      }
      throw reason;
    }
    const status = res.statusCode ?? 0;
    if (REDIRECTS.has(status)) {
      res.destroy();
      const location = res.headers.location;
      if (location === undefined || location === '') throw new FetchRefused(`returned HTTP ${status} without a Location header`);
      if (hop >= maxRedirects) throw new FetchRefused(`redirects more than ${maxRedirects} times`);
      try {
        url = new URL(location, url);
      } catch {
        throw new FetchRefused(`redirects to an invalid URL`);
      }
      continue;
    }
    if (status < 200 || status > 299) {
      res.destroy();
      throw new FetchRefused(`returned HTTP ${status}`);
    }
    const contentType = res.headers['content-type'] ?? null;
    try {
      const size = await readBody(res, sink, opts);
      return { url, contentType, size };
    } catch (err) {
      throw explain(err, opts);
    }
  }
}
