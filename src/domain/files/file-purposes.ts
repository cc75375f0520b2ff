/**
 * Upload purposes (spec "File"): `custom_audience` lists go to POST /uploads,
 * `account_favicon` images to POST /upload; a file uploaded to /upload with
 * no purpose is a creative image, stored with purpose NULL.
 */
export const FILE_PURPOSES = ['account_favicon', 'custom_audience'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

/** A file's purpose as stored and shown: null is a creative image. */
export type StoredPurpose = FilePurpose | null;

/** Favicons must be at least this many pixels wide and high (spec "Limits": Favicon image). */
export const FAVICON_MIN_PIXELS = 128;

/** For messages: "uploaded with purpose account_favicon" / "a creative image (uploaded without a purpose)". */
export const describePurpose = (p: StoredPurpose): string =>
  p === null ? 'a creative image (uploaded to POST /v1/upload without a purpose)' : `uploaded with purpose ${p}`;
