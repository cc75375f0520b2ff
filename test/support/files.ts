import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../../src/store/store.js';
import { ID_PREFIX, newId } from '../../src/ids.js';

/** Puts a file record in the store, as the upload endpoints do, without going through HTTP. */
export async function insertFile(
  store: Store,
  accountId: string,
  purpose: string | null,
  opts: { dataDir?: string; content?: string; filename?: string; mime?: string } = {},
): Promise<string> {
  const id = newId(ID_PREFIX.file);
  const content = opts.content ?? id;
  const sha = createHash('sha256').update(content).digest('hex');
  const rel = join('files', sha.slice(0, 2), sha);
  if (opts.dataDir !== undefined) {
    mkdirSync(join(opts.dataDir, 'files', sha.slice(0, 2)), { recursive: true });
    writeFileSync(join(opts.dataDir, rel), content);
  }
  await store.run(
    `INSERT INTO files (id, ad_account_id, purpose, filename, mime_type, size_bytes, width, height, sha256, storage_path, source_url, created_at_ms)
     VALUES ($id, $acct, $purpose, $filename, $mime, $size, $w, $h, $sha, $path, NULL, 0)`,
    {
      id,
      acct: accountId,
      purpose,
      filename: opts.filename ?? 'icon.png',
      mime: opts.mime ?? 'image/png',
      size: Buffer.byteLength(content),
      w: purpose === 'custom_audience' ? null : 256,
      h: purpose === 'custom_audience' ? null : 256,
      sha,
      path: rel,
    },
  );
  return id;
}

/** A customer list of `n` distinct emails (plus a header), stored as an upload of the account. */
export async function insertCustomerList(store: Store, dataDir: string, accountId: string, emails: string[]): Promise<{ fileId: string; body: object }> {
  const content = ['email', ...emails].join('\n') + '\n';
  const fileId = await insertFile(store, accountId, 'custom_audience', { dataDir, content, filename: 'list.csv', mime: 'text/csv' });
  return { fileId, body: { file_id: fileId, filename: 'list.csv', mimetype: 'text/csv', file_size: Buffer.byteLength(content) } };
}

export const emails = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`);
