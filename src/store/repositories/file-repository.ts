import { z } from 'zod';
import { sql } from '../sql-loader.js';
import type { Queryable } from '../store.js';

export const FileRecord = z.object({
  id: z.string(),
  ad_account_id: z.string(),
  purpose: z.string().nullable(),
  filename: z.string().nullable(),
  mime_type: z.string(),
  size_bytes: z.number(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  sha256: z.string(),
  storage_path: z.string(),
  source_url: z.string().nullable(),
  created_at_ms: z.number(),
});
export type FileRecord = z.infer<typeof FileRecord>;

export const fileRepository = {
  async get(db: Queryable, accountId: string, id: string): Promise<FileRecord | undefined> {
    const row = await db.get(sql('file-get'), { id, ad_account_id: accountId });
    return row === undefined ? undefined : FileRecord.parse(row);
  },
};
