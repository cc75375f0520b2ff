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

export interface NewFileRow {
  id: string;
  ad_account_id: string;
  purpose: string | null;
  filename: string | null;
  mime_type: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
  sha256: string;
  storage_path: string;
  source_url: string | null;
  created_at_ms: number;
}

export const fileRepository = {
  /** One file of an account; another account's file reads as absent. */
  async get(db: Queryable, accountId: string, id: string): Promise<FileRecord | undefined> {
    const row = await db.get(sql('file-get'), { id, ad_account_id: accountId });
    return row === undefined ? undefined : FileRecord.parse(row);
  },

  async insert(db: Queryable, row: NewFileRow): Promise<FileRecord> {
    const [out] = await db.write(sql('file-insert'), { ...row });
    return FileRecord.parse(out);
  },
};
