import { z } from 'zod';
import { sql } from '../sql-loader.js';
import type { Queryable } from '../store.js';

export const ApiKeyRecord = z.object({
  id: z.string(),
  ad_account_id: z.string(),
  secret_hash: z.string(),
  billing: z.boolean(),
});
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

export const apiKeyRepository = {
  async insert(
    db: Queryable,
    row: { id: string; ad_account_id: string; secret_hash: string; billing: boolean; now_ms: number },
  ): Promise<void> {
    await db.run(sql('api-key-insert'), { ...row });
  },

  async get(db: Queryable, id: string): Promise<ApiKeyRecord | undefined> {
    const row = await db.get(sql('api-key-get'), { id });
    return row === undefined ? undefined : ApiKeyRecord.parse(row);
  },
};
