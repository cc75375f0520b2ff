import { createHash, randomBytes, type Hash } from 'node:crypto';
import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Uploaded bytes live under `<dataDir>/files/<sha[0..2]>/<sha256>`: content
 * addressed, so identical uploads share one blob, and a row in `files` points
 * at it with a path relative to the data dir (the dir may move).
 */
const FILES_DIR = 'files';
const TMP_DIR = '.tmp';
/** How much of the start of a blob stays in memory for sniffing (image-size reads as much from a file). */
export const HEAD_BYTES = 512 * 1024;

export class BlobTooLarge extends Error {
  override readonly name = 'BlobTooLarge';
  constructor(readonly maxBytes: number) {
    super(`larger than ${maxBytes} bytes`);
  }
}

/** Bytes written to a temp file, hashed, not yet in the store. */
export interface StagedBlob {
  readonly sha256: string;
  readonly size: number;
  /** The first HEAD_BYTES bytes (all of them for small blobs). */
  readonly head: Buffer;
  readonly tempPath: string;
}

export const storagePathOf = (sha256: string): string => `${FILES_DIR}/${sha256.slice(0, 2)}/${sha256}`;

/** Absolute path of a stored blob; `storagePath` as recorded in `files.storage_path`. */
export function blobPath(dataDir: string, storagePath: string): string {
  // Rows only ever hold paths made by storagePathOf; refuse anything else rather than read outside the store.
  if (!/^files\/[0-9a-f]{2}\/[0-9a-f]{64}$/.test(storagePath)) throw new Error(`not a blob storage path: ${storagePath}`);
  return join(dataDir, storagePath);
}

/**
 * Streams bytes to a temp file in the same directory tree as the blobs (so the
 * final rename is atomic), hashing and counting as it goes. Past `maxBytes`,
 * `write` throws BlobTooLarge and stops writing.
 */
export class BlobWriter {
  private readonly hash: Hash = createHash('sha256');
  private readonly headParts: Buffer[] = [];
  private headLength = 0;
  private written = 0;
  private done = false;

  private constructor(
    private readonly handle: FileHandle,
    readonly tempPath: string,
    private readonly maxBytes: number,
  ) {}

  static async create(dataDir: string, maxBytes: number): Promise<BlobWriter> {
    const dir = join(dataDir, FILES_DIR, TMP_DIR);
    await mkdir(dir, { recursive: true });
    const tempPath = join(dir, randomBytes(12).toString('hex'));
    return new BlobWriter(await open(tempPath, 'wx'), tempPath, maxBytes);
  }

  get size(): number {
    return this.written;
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.done) throw new Error('blob writer is closed');
    if (this.written + chunk.length > this.maxBytes) throw new BlobTooLarge(this.maxBytes);
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.written += buf.length;
    this.hash.update(buf);
    if (this.headLength < HEAD_BYTES) {
      const take = buf.subarray(0, HEAD_BYTES - this.headLength);
      this.headParts.push(Buffer.from(take));
      this.headLength += take.length;
    }
    await this.handle.write(buf);
  }

  async finish(): Promise<StagedBlob> {
    this.done = true;
    await this.handle.close();
    return { sha256: this.hash.digest('hex'), size: this.written, head: Buffer.concat(this.headParts), tempPath: this.tempPath };
  }

  /** Drops the temp file; safe to call more than once and after finish. */
  async discard(): Promise<void> {
    if (!this.done) {
      this.done = true;
      await this.handle.close().catch(() => undefined);
    }
    await rm(this.tempPath, { force: true });
  }
}

/**
 * Moves a staged blob into place and returns its storage path. When the same
 * content is stored already the temp file is dropped instead; a rename over it
 * would also be safe, as the bytes are identical.
 */
export async function commitBlob(dataDir: string, staged: StagedBlob): Promise<string> {
  const storagePath = storagePathOf(staged.sha256);
  const target = blobPath(dataDir, storagePath);
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isFile() && existing.size === staged.size) {
    await rm(staged.tempPath, { force: true });
    return storagePath;
  }
  await mkdir(join(dataDir, FILES_DIR, staged.sha256.slice(0, 2)), { recursive: true });
  await rename(staged.tempPath, target);
  return storagePath;
}

export const discardStaged = (staged: StagedBlob): Promise<void> => rm(staged.tempPath, { force: true });
