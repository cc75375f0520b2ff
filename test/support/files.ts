import { createHash } from 'node:crypto';
import type { Store } from '../../src/store/store.js';
import { ID_PREFIX, newId } from '../../src/ids.js';

/** Puts a file record in the store, as the upload endpoint will (its own issue). */
export async function insertFile(store: Store, accountId: string, purpose: string | null): Promise<string> {
  const id = newId(ID_PREFIX.file);
  await store.run(
    `INSERT INTO files (id, ad_account_id, purpose, filename, mime_type, size_bytes, width, height, sha256, storage_path, source_url, created_at_ms)
     VALUES ($id, $acct, $purpose, 'icon.png', 'image/png', 1234, 256, 256, $sha, $path, NULL, 0)`,
    { id, acct: accountId, purpose, sha: createHash('sha256').update(id).digest('hex'), path: `files/${id}` },
  );
  return id;
}
