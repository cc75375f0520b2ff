import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { parseOrThrow } from '../errors/zod-issues.js';
import { ID_PREFIX, randomToken } from '../ids.js';
import { apiKeyRepository, type ApiKeyRecord } from '../store/repositories/api-key-repository.js';
import type { Store } from '../store/store.js';
import { requireAccount } from './accounts/accounts.js';

/**
 * API keys: `adsvc_<key id>_<secret>`. The id part finds the record; the whole
 * key's SHA-256 is compared in constant time. Keys are shown once at creation.
 */
const KEY_FORMAT = /^adsvc_([0-9a-z]{16})_([0-9a-z]{40})$/;

export const CreateKeyInput = z
  .object({
    account: z.string().min(1),
    billing: z.boolean().default(false),
  })
  .strict();

export interface CreatedKey {
  id: string;
  ad_account_id: string;
  billing: boolean;
  created_at: number;
  /** The secret key; this is the only time it is shown. */
  key: string;
}

export interface AuthContext {
  keyId: string;
  accountId: string;
  billing: boolean;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

export async function createApiKey(deps: { store: Store; clock: Clock }, raw: unknown): Promise<CreatedKey> {
  const input = parseOrThrow(CreateKeyInput, raw);
  const account = await requireAccount(deps, input.account);
  const keyPart = randomToken(16);
  const key = `adsvc_${keyPart}_${randomToken(40)}`;
  const now = deps.clock.nowMs();
  const id = ID_PREFIX.apiKey + keyPart;
  await apiKeyRepository.insert(deps.store, {
    id,
    ad_account_id: account.id,
    secret_hash: sha256(key).toString('hex'),
    billing: input.billing,
    now_ms: now,
  });
  return { id, ad_account_id: account.id, billing: input.billing, created_at: Math.floor(now / 1000), key };
}

/**
 * Checks presented keys. Key records are immutable once created and only the
 * owning process writes them, so found records are kept in memory (bounded);
 * the hash comparison still runs on every request. Unknown ids are not
 * cached, so guessing cannot fill memory.
 */
export class ApiKeyVerifier {
  private readonly cache = new Map<string, ApiKeyRecord>();

  constructor(
    private readonly store: Store,
    private readonly maxEntries = 10_000,
  ) {}

  /** The key's owner, or null for a malformed or unknown key (the caller answers 401). */
  async verify(presented: string): Promise<AuthContext | null> {
    const m = KEY_FORMAT.exec(presented);
    if (!m) return null;
    const id = ID_PREFIX.apiKey + (m[1] as string);
    let record = this.cache.get(id);
    if (record === undefined) {
      record = await apiKeyRepository.get(this.store, id);
      if (!record) return null;
      if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(id, record);
    }
    const expected = Buffer.from(record.secret_hash, 'hex');
    const actual = sha256(presented);
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
    return { keyId: record.id, accountId: record.ad_account_id, billing: record.billing };
  }
}
