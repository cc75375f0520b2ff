import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DEVICES, EVENT_TYPES, PLATFORMS } from '../../src/ingest/event-contract.js';
import { migrate, MigrationError, migrationsDir, readMigrations } from '../../src/store/migrations.js';
import { projectRoot } from '../../src/store/project-root.js';
import { sql } from '../../src/store/sql-loader.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../support/context.js';

const clock = new ManualClock(Date.UTC(2026, 10, 22));
const dirs: { cleanup(): void }[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) d.cleanup();
});

async function emptyStore(): Promise<{ store: Store; dir: string }> {
  const dir = tempDir();
  dirs.push(dir);
  const store = await Store.open(join(dir.path, 'db.duckdb'));
  stores.push(store);
  return { store, dir: dir.path };
}

/** A store migrated up to, not including, the named migration; with every migration, to finish. */
async function storeBefore(name: string): Promise<{ store: Store; all: ReturnType<typeof readMigrations> }> {
  const { store } = await emptyStore();
  const all = readMigrations();
  const at = all.findIndex((m) => m.name === name);
  expect(at).toBeGreaterThan(0);
  await migrate(store, clock, all.slice(0, at));
  return { store, all };
}

describe('migrations', () => {
  it('apply every migration to an empty database, in order, with a ledger row each', async () => {
    const { store } = await emptyStore();
    const all = readMigrations();
    expect(all.length).toBeGreaterThan(0);
    const applied = await migrate(store, clock);
    expect(applied).toEqual(all.map((m) => m.version));
    const ledger = await store.all('SELECT version, name, checksum, applied_at_ms FROM schema_migrations ORDER BY version');
    expect(ledger).toEqual(all.map((m) => ({ version: m.version, name: m.name, checksum: m.checksum, applied_at_ms: clock.nowMs() })));
    const tables = (await store.all("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'")).map((r) => r['table_name']);
    expect(tables).toEqual(expect.arrayContaining(['ad_accounts', 'api_keys', 'files', 'schema_migrations']));
  });

  it('give stored events ENUMs of exactly the contract values, and keep the values of events stored as text before', async () => {
    const { store, all } = await storeBefore('event_columns');
    const rows = [
      ['e1', 'impression', 'US', 'mobile', 'ios_app'],
      ['e2', 'click', 'ZZ', 'other', 'web'],
      ['e3', 'conversion', null, null, null],
    ] as const;
    for (const [id, type, country, device, platform] of rows) {
      await store.run(
        `INSERT INTO events (ad_account_id, event_id, type, ts_us, country, device, platform, cost_micros, run_id, ingested_at_us)
         VALUES ('adacct_1', $id, $type, 1, $country, $device, $platform, 0, 'irun_1', 1)`,
        { id, type, country, device, platform },
      );
    }
    await migrate(store, clock, all);
    const values = async (type: string) => (await store.all(`SELECT unnest(enum_range(NULL::${type})) AS v`)).map((r) => r['v']);
    expect(await values('event_type')).toEqual([...EVENT_TYPES]);
    expect(await values('event_device')).toEqual([...DEVICES]);
    expect(await values('event_platform')).toEqual([...PLATFORMS]);
    const letters = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
    expect(await values('country_code')).toEqual(letters.flatMap((a) => letters.map((b) => a + b)));
    const stored = await store.all('SELECT event_id, type, country, device, platform FROM events ORDER BY event_id');
    expect(stored.map((r) => [r['event_id'], r['type'], r['country'], r['device'], r['platform']])).toEqual(rows.map((r) => [...r]));
    expect(await store.get("SELECT count(*) AS n FROM events WHERE type = 'click'::event_type")).toEqual({ n: 1 });
  });

  it('remake events with a compression per string column, keeping every stored event and the column order the loader inserts by', async () => {
    const { store, all } = await storeBefore('event_compression');
    const columns = async () => (await store.all(`SELECT column_name, data_type, is_nullable FROM duckdb_columns() WHERE table_name = 'events' ORDER BY column_index`));
    const before = await columns();
    await store.run(
      `INSERT INTO events SELECT 'adacct_1', 'e' || i, 'click', i, 'ad_' || (i % 3), 'u' || i, 'US', 'mobile', 'web', NULL, NULL, i, NULL, NULL, NULL, 'irun_1', 7, hash(i)
       FROM range(2000) r(i)`,
    );
    const stored = await store.all('SELECT * FROM events ORDER BY ts_us');
    await migrate(store, clock, all);
    expect(await columns()).toEqual(before);
    expect(await store.all('SELECT * FROM events ORDER BY ts_us')).toEqual(stored);
    // Ad ids all different and a few user ids: left to choose, DuckDB picks FSST for the first and a
    // dictionary for the second; the columns' own compressions are used instead.
    await store.run(
      `INSERT INTO events SELECT 'adacct_1', 'f' || i, 'click', i, 'ad_with_a_long_shared_prefix_' || i, 'u' || (i % 4), NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, 'irun_2', 7, hash(i)
       FROM range(5000) r(i)`,
    );
    await store.run('CHECKPOINT');
    const used = async (column: string) =>
      String((await store.get(`SELECT string_agg(DISTINCT compression) AS c FROM pragma_storage_info('events') WHERE column_name = $column`, { column }))?.['c']);
    expect(await used('ad_id')).toContain('Dictionary');
    expect(await used('ad_id')).not.toContain('FSST');
    expect(await used('user_id')).toContain('FSST');
    expect(await used('user_id')).not.toContain('Dictionary');
  });

  it('apply nothing the second time', async () => {
    const { store } = await emptyStore();
    await migrate(store, clock);
    expect(await migrate(store, clock)).toEqual([]);
  });

  it('refuse to start when a landed migration was edited', async () => {
    const { store, dir } = await emptyStore();
    const edited = join(dir, 'migrations');
    mkdirSync(edited);
    for (const f of readdirSync(migrationsDir())) copyFileSync(join(migrationsDir(), f), join(edited, f));
    await migrate(store, clock, readMigrations(edited));
    const first = readdirSync(edited).sort()[0] as string;
    writeFileSync(join(edited, first), '-- changed\n' + sql('account-get'));
    await expect(migrate(store, clock, readMigrations(edited))).rejects.toThrow(MigrationError);
    await expect(migrate(store, clock, readMigrations(edited))).rejects.toThrow(/append-only/);
  });

  it('roll back a failing migration together with its ledger row', async () => {
    const { store, dir } = await emptyStore();
    const mdir = join(dir, 'bad');
    mkdirSync(mdir);
    writeFileSync(join(mdir, '0001_ok.sql'), 'CREATE TABLE t1 (x INTEGER);');
    writeFileSync(join(mdir, '0002_bad.sql'), 'CREATE TABLE t2 (x INTEGER); INSERT INTO nowhere VALUES (1);');
    await expect(migrate(store, clock, readMigrations(mdir))).rejects.toThrow();
    expect((await store.all('SELECT version FROM schema_migrations')).map((r) => r['version'])).toEqual([1]);
    const t2 = await store.all("SELECT table_name FROM information_schema.tables WHERE table_name = 't2'");
    expect(t2).toEqual([]);
  });

  it('need numbered files without gaps', async () => {
    const { dir } = await emptyStore();
    writeFileSync(join(dir, '0001_a.sql'), 'SELECT 1;');
    writeFileSync(join(dir, '0003_c.sql'), 'SELECT 1;');
    expect(() => readMigrations(dir)).toThrow(/without gaps/);
  });

  it('leave every static query valid against the migrated schema', async () => {
    const { store } = await emptyStore();
    await migrate(store, clock);
    const queries = readdirSync(join(projectRoot(), 'sql', 'queries')).filter((f) => f.endsWith('.sql'));
    expect(queries.length).toBeGreaterThan(0);
    for (const f of queries) {
      const text = sql(f.replace(/\.sql$/, ''));
      expect(text, `${f} has a purpose header`).toMatch(/^-- purpose: /);
      // Preparing binds every table and column name without running the statement.
      await expect(store.prepareCheck(text), f).resolves.toBeUndefined();
    }
  });
});
