import { imageSize } from 'image-size';

/**
 * What an upload really is, judged from its bytes (never from the MIME type or
 * file name a client claims).
 */
export type ImageType = 'png' | 'jpeg' | 'gif' | 'webp' | 'ico';

export interface ImageInfo {
  type: ImageType;
  mimeType: string;
  width: number;
  height: number;
}

export type ProbeResult =
  | { ok: true; image: ImageInfo }
  /** `detected`: a type image-size recognised that we do not accept (svg, bmp, tiff ...). */
  | { ok: false; detected: string | null };

const ACCEPTED: Record<string, { type: ImageType; mimeType: string }> = {
  png: { type: 'png', mimeType: 'image/png' },
  jpg: { type: 'jpeg', mimeType: 'image/jpeg' },
  gif: { type: 'gif', mimeType: 'image/gif' },
  webp: { type: 'webp', mimeType: 'image/webp' },
  ico: { type: 'ico', mimeType: 'image/x-icon' },
};

// image-size matches some formats on a few zero bytes (TGA); naming one of those would mislead.
const WEAK_SIGNATURES = new Set(['tga']);

/**
 * ICO headers are six bytes that many non-images share; also require the
 * first directory entry to point at image data inside the file.
 */
function plausibleIco(bytes: Buffer, totalSize: number): boolean {
  if (bytes.length < 22) return false;
  const dataSize = bytes.readUInt32LE(14);
  const offset = bytes.readUInt32LE(18);
  return dataSize > 0 && offset >= 22 && offset + dataSize <= totalSize;
}

/**
 * `head` is the start of the content (at least its header; image-size reads
 * no further than 512 KiB from a file either); `totalSize` the whole length.
 */
export function probeImage(head: Buffer, totalSize: number = head.length): ProbeResult {
  if (head.length === 0) return { ok: false, detected: null };
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(head);
  } catch {
    return { ok: false, detected: null };
  }
  const type = size.type ?? '';
  const accepted = ACCEPTED[type];
  if (!accepted) return { ok: false, detected: WEAK_SIGNATURES.has(type) || type === '' ? null : type };
  if (accepted.type === 'ico' && !plausibleIco(head, totalSize)) return { ok: false, detected: null };
  if (!(size.width > 0 && size.height > 0)) return { ok: false, detected: null };
  // EXIF orientations 5-8 rotate by 90 degrees: the picture people see is the other way round.
  const turned = accepted.type === 'jpeg' && size.orientation !== undefined && size.orientation >= 5;
  return {
    ok: true,
    image: { ...accepted, width: turned ? size.height : size.width, height: turned ? size.width : size.height },
  };
}

export const IMAGE_TYPE_NAMES: Record<ImageType, string> = { png: 'PNG', jpeg: 'JPEG', gif: 'GIF', webp: 'WebP', ico: 'ICO' };
