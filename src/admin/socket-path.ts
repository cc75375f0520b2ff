import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where a running `serve` listens for CLI commands: `adsvc.sock` in the data
 * dir, or, when that path is too long for a Unix socket (about 104 bytes on
 * some systems), a name in the temp dir derived from the data dir. Both the
 * service and the CLI compute it the same way.
 */
export function adminSocketPath(dataDir: string): string {
  const inDir = join(dataDir, 'adsvc.sock');
  if (Buffer.byteLength(inDir) <= 100) return inDir;
  return join(tmpdir(), `adsvc-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.sock`);
}

export const databasePath = (dataDir: string): string => join(dataDir, 'adsvc.duckdb');
