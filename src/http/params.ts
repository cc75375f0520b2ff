import { z } from 'zod';

/** Query-string integers: digits become numbers; anything else is left for zod to call the wrong type. */
export const queryInt = (min: number, max: number) =>
  z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v), z.number().int().min(min).max(max));

/** Query-string arrays: a single value counts as a one-element array. */
export const queryArray = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(item));

/** Path ids: short, printable, no slashes (the router guarantees the latter). */
export const pathId = z.string().min(1).max(128);

/** `limit`, `after`, `before`, `order` of every list endpoint (spec: Campaigns; COMPAT.md: Lists). */
export const listQueryShape = {
  limit: queryInt(1, 500).default(20),
  after: z.string().min(1).max(128).optional(),
  before: z.string().min(1).max(128).optional(),
  order: z.enum(['asc', 'desc']).default('desc'),
};
