import { z } from 'zod';
import { ApiError } from '../../errors/api-error.js';
import { smallestUnitMicros } from '../currencies.js';
import { DATE_MAX, DATE_MIN, isCalendarDate } from './local-dates.js';

/** Request shapes of the spend-limit routes; rule checks that need state live in spend-limits.ts. */
export const SpendDate = z
  .string()
  .refine(isCalendarDate, 'must be a real calendar date written YYYY-MM-DD')
  .refine((d) => d >= DATE_MIN && d <= DATE_MAX, `must be from ${DATE_MIN} through ${DATE_MAX}`);

const label = z.string().max(256);
// Integer-ness is a 400; the amount rules (sign, cap, currency unit) are 422s checked below.
const amount = z.number().int();

export const CreateWindowInput = z
  .object({ start_date: SpendDate, end_date: SpendDate, amount_micros: amount, name: label.nullish(), io_id: label.nullish() })
  .strict();

export const UpdateWindowInput = z
  .object({ start_date: SpendDate, end_date: SpendDate, amount_micros: amount, name: label.nullable(), io_id: label.nullable() })
  .partial()
  .strict();

export const DailyLimitInput = z
  .object({ amount_micros: amount, expected_revision: z.number().int().min(0), start_date: SpendDate.optional(), end_date: SpendDate.nullable().optional() })
  .strict();

export const DeleteDailyInput = z.object({ expected_revision: z.number().int().min(0) }).strict();

export const MAX_AMOUNT_MICROS = 1_000_000_000_000_000;

/** Nonnegative, at most 10^15, a multiple of the currency's smallest unit (422 otherwise). */
export function checkAmount(amountMicros: number, currency: string): void {
  const param = 'amount_micros';
  if (amountMicros < 0) throw new ApiError('invalid_amount', 'amount_micros must not be negative.', { param });
  if (amountMicros > MAX_AMOUNT_MICROS) throw new ApiError('invalid_amount', `amount_micros must be at most ${MAX_AMOUNT_MICROS}.`, { param });
  const unit = smallestUnitMicros(currency);
  if (amountMicros % unit !== 0) {
    throw new ApiError('invalid_amount', `amount_micros must be a multiple of ${unit} (the smallest unit of ${currency}).`, { param });
  }
}
