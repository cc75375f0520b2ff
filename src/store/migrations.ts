import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { projectRoot } from './project-root.js';
import type { Store } from './store.js';

/**
 * Append-only migrations: sql/migrations/NNNN_name.sql, applied in order, each
 * in its own transaction together with its ledger row. A landed migration is
 * never edited: the ledger keeps its checksum and a changed file stops start-up.
 */

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export function migrationsDir(): string {
  return join(projectRoot(), 'sql', 'migrations');
}

export function readMigrations(dir: string = migrationsDir()): Migration[] {
  const out: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    const m = FILE.exec(file);
    if (!m) {
      if (file.endsWith('.sql')) throw new Error(`migration file name must be NNNN_name.sql: ${file}`);
      continue;
    }
    const text = readFileSync(join(dir, file), 'utf8');
    out.push({
      version: Number(m[1]),
      name: m[2] as string,
      sql: text,
      checksum: createHash('sha256').update(text).digest('hex'),
    });
  }
  out.forEach((mig, i) => {
    if (mig.version !== i + 1) throw new Error(`migrations must be numbered 0001, 0002, ... without gaps; found ${file(mig)} at position ${i + 1}`);
  });
  return out;
}

const file = (m: Migration): string => `${String(m.version).padStart(4, '0')}_${m.name}.sql`;

const LedgerRow = z.object({ version: z.number().int(), name: z.string(), checksum: z.string() });

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

export async function migrate(store: Store, clock: Clock, migrations: Migration[] = readMigrations()): Promise<number[]> {
  await store.run(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    checksum VARCHAR NOT NULL,
    applied_at_ms BIGINT NOT NULL
  )`);
  const ledger = (await store.all('SELECT version, name, checksum FROM schema_migrations ORDER BY version')).map((r) => LedgerRow.parse(r));
  const byVersion = new Map(migrations.map((m) => [m.version, m]));
  for (const row of ledger) {
    const mig = byVersion.get(row.version);
    if (!mig) throw new MigrationError(`the database has migration ${row.version} (${row.name}) that this build does not know; it was made by a newer adsvc`);
    if (mig.checksum !== row.checksum) {
      throw new MigrationError(`migration ${file(mig)} was edited after it was applied; migrations are append-only, add a new one instead`);
    }
  }
  const applied: number[] = [];
  const done = new Set(ledger.map((r) => r.version));
  for (const mig of migrations) {
    if (done.has(mig.version)) continue;
    await store.transaction(async (tx) => {
      await tx.run(mig.sql);
      await tx.run('INSERT INTO schema_migrations VALUES ($1, $2, $3, $4)', [mig.version, mig.name, mig.checksum, clock.nowMs()]);
    });
    applied.push(mig.version);
  }
  return applied;
}
