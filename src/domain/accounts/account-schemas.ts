import { z } from 'zod';
import { isCurrencyCode } from '../currencies.js';
import { canonicalTimezone } from '../timezones.js';
import { httpUrl, label } from '../text.js';

export const ACCOUNT_FEATURES = [
  'brand',
  'conversion_bidding',
  'product_segments',
  'zero_impression_products',
  'postpaid_invoice',
] as const;
export type AccountFeature = (typeof ACCOUNT_FEATURES)[number];

export const REVIEW_STATUSES = ['in_review', 'rejected', 'approved'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

const displayName = label(1, 256);

/** Input of `adsvc accounts create` (and the admin command behind it). */
const ianaTimezone = z.string().transform((s, ctx) => {
  const tz = canonicalTimezone(s);
  if (tz === null) {
    ctx.addIssue({ code: 'custom', message: `'${s}' is not an IANA timezone name (e.g. America/New_York)` });
    return z.NEVER;
  }
  return tz;
});

export const CreateAccountInput = z
  .object({
    name: displayName,
    url: httpUrl(),
    timezone: ianaTimezone,
    currency: z
      .string()
      .transform((s) => s.toUpperCase())
      .refine(isCurrencyCode, 'must be an ISO 4217 currency code (e.g. USD)'),
    enable: z.array(z.enum(ACCOUNT_FEATURES)).default([]),
  })
  .strict();
export type CreateAccountInput = z.input<typeof CreateAccountInput>;

/** Body of `POST /ad_account/brand`: at least one of the two fields. */
export const BrandInput = z
  .object({
    name: displayName.optional(),
    favicon_file_id: z.string().min(1).max(64).optional(),
  })
  .strict();
export type BrandInput = z.output<typeof BrandInput>;

/** Input of `adsvc accounts set-timezone`. */
export const SetTimezoneInput = z.object({ account: z.string().min(1), timezone: ianaTimezone }).strict();
