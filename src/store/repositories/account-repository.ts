import { z } from 'zod';
import { REVIEW_STATUSES } from '../../domain/accounts/account-schemas.js';
import { sql } from '../sql-loader.js';
import type { Queryable } from '../store.js';

export const AccountRecord = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  timezone: z.string(),
  currency_code: z.string(),
  status: z.enum(['active', 'paused']),
  review_status: z.enum(REVIEW_STATUSES),
  review_reason: z.string().nullable(),
  review_seq: z.number().int(),
  review_requested_at_ms: z.number().nullable(),
  favicon_file_id: z.string().nullable(),
  brand_enabled: z.boolean(),
  conversion_bidding_enabled: z.boolean(),
  product_segments_enabled: z.boolean(),
  zero_impression_products_enabled: z.boolean(),
  postpaid_invoice: z.boolean(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
export type AccountRecord = z.infer<typeof AccountRecord>;

export interface NewAccountRow {
  id: string;
  name: string;
  url: string;
  timezone: string;
  currency_code: string;
  status: 'active' | 'paused';
  review_status: AccountRecord['review_status'];
  brand_enabled: boolean;
  conversion_bidding_enabled: boolean;
  product_segments_enabled: boolean;
  zero_impression_products_enabled: boolean;
  postpaid_invoice: boolean;
  now_ms: number;
}

const parse = (row: unknown): AccountRecord => AccountRecord.passthrough().parse(row);

export const accountRepository = {
  async insert(db: Queryable, row: NewAccountRow): Promise<void> {
    await db.run(sql('account-insert'), { ...row });
  },

  async get(db: Queryable, id: string): Promise<AccountRecord | undefined> {
    const row = await db.get(sql('account-get'), { id });
    return row === undefined ? undefined : parse(row);
  },

  async submitBrand(
    db: Queryable,
    p: { id: string; name: string | null; favicon_file_id: string | null; now_ms: number },
  ): Promise<AccountRecord | undefined> {
    const [row] = await db.write(sql('account-submit-brand'), { ...p });
    return row === undefined ? undefined : parse(row);
  },

  async decideReview(
    db: Queryable,
    p: { id: string; review_seq: number; review_status: 'approved' | 'rejected'; review_reason: string | null; now_ms: number },
  ): Promise<AccountRecord | undefined> {
    const [row] = await db.write(sql('account-decide-review'), { ...p });
    return row === undefined ? undefined : parse(row);
  },

  async pendingReviews(db: Queryable): Promise<{ id: string; review_seq: number; review_requested_at_ms: number | null }[]> {
    const rows = await db.all(sql('accounts-in-review'));
    return rows.map((r) =>
      z.object({ id: z.string(), review_seq: z.number().int(), review_requested_at_ms: z.number().nullable() }).parse(r),
    );
  },
};
