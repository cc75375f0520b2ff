import { z } from 'zod';

/** A label of `min..max` characters with at least one that is not white space. */
export const label = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .refine((s) => s.trim() !== '', 'must contain a non-space character');

/** An absolute http(s) URL of at most `max` characters. */
export const httpUrl = (max = 2048) =>
  z
    .string()
    .max(max)
    .refine((s) => {
      try {
        const u = new URL(s);
        return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname !== '';
      } catch {
        return false;
      }
    }, 'must be an absolute http(s) URL');
