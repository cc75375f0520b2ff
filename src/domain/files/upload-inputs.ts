import { z } from 'zod';
import { httpUrl } from '../text.js';

/** The edge schemas of the upload endpoints (spec "Files"). */

// custom_audience is a real purpose, but of the other endpoint; say so instead of "invalid option".
const imagePurpose = z
  .string()
  .refine((p) => p !== 'custom_audience', 'custom_audience lists are uploaded with POST /v1/uploads.')
  .pipe(z.enum(['account_favicon'], { error: 'must be account_favicon, or omitted for a creative image' }));

/** `POST /upload` with a JSON body. */
export const UrlUploadInput = z
  .object({
    image_url: httpUrl(2048),
    purpose: imagePurpose.nullish().transform((p) => p ?? null),
  })
  .strict();
export type UrlUploadInput = z.output<typeof UrlUploadInput>;

/** `purpose` form field of a multipart `POST /upload`; forms cannot send null, so empty means none. */
export const FormImagePurpose = z
  .preprocess((v) => (v === '' ? undefined : v), imagePurpose.optional())
  .transform((p) => p ?? null);

/** `purpose` form field of `POST /uploads`: required, one value. */
export const AudiencePurpose = z.literal('custom_audience', { error: 'must be custom_audience' });
