import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors/api-error.js';
import { Mutex } from '../store/mutex.js';
import { sql } from '../store/sql-loader.js';
import type { Store } from '../store/store.js';

/**
 * `Idempotency-Key` on creates (COMPAT.md, Transport): per account, the same
 * key with the same body returns the original response; with another body (or
 * on another route) it is a 422. Only successful responses are remembered, so
 * a request that failed validation can be corrected and retried with its key.
 */
export const IdempotencyKey = z.string().min(1).max(255);

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` hash alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const Stored = z.object({ route: z.string(), request_hash: z.string(), response_status: z.number().int(), response_body: z.string() });

export interface IdempotentOutcome<T> {
  status: number;
  body: T | unknown;
  replayed: boolean;
}

const locks = new Map<string, { mutex: Mutex; users: number }>();

/** One request per (account, key) at a time inside this process, which owns the store. */
async function withKeyLock<T>(lockKey: string, fn: () => Promise<T>): Promise<T> {
  let entry = locks.get(lockKey);
  if (!entry) locks.set(lockKey, (entry = { mutex: new Mutex(), users: 0 }));
  entry.users++;
  try {
    return await entry.mutex.run(fn);
  } finally {
    if (--entry.users === 0) locks.delete(lockKey);
  }
}

export async function withIdempotency<T>(
  deps: { store: Store; clock: Clock },
  req: { accountId: string; key: string; route: string; body: unknown },
  create: () => Promise<{ status: number; body: T }>,
): Promise<IdempotentOutcome<T>> {
  const hash = createHash('sha256').update(req.route).update('\n').update(canonicalJson(req.body ?? null)).digest('hex');
  return withKeyLock(`${req.accountId}\n${req.key}`, async () => {
    const row = await deps.store.get(sql('idempotency-get'), { account: req.accountId, key: req.key });
    if (row) {
      const stored = Stored.parse(row);
      if (stored.request_hash !== hash) {
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request. Use a new key for a new request.', {
          param: 'Idempotency-Key',
        });
      }
      return { status: stored.response_status, body: JSON.parse(stored.response_body) as unknown, replayed: true };
    }
    const out = await create();
    await deps.store.run(sql('idempotency-insert'), {
      account: req.accountId,
      key: req.key,
      route: req.route,
      request_hash: hash,
      response_status: out.status,
      response_body: JSON.stringify(out.body),
      now_ms: deps.clock.nowMs(),
    });
    return { ...out, replayed: false };
  });
}
