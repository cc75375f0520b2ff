import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryCancelledError, Store } from '../../src/store/store.js';
import { tempDir } from '../support/context.js';

const dir = tempDir();
let store: Store;
beforeAll(async () => {
  store = await Store.open(join(dir.path, 'db.duckdb'));
  await store.run("CREATE TABLE t (id VARCHAR, status VARCHAR, n BIGINT); INSERT INTO t VALUES ('a', 'approved', 1)");
});
afterAll(async () => {
  await store.close();
  dir.cleanup();
});

describe('Store', () => {
  it('sees rows that changed after the same query ran before (no stale plans)', async () => {
    const q = "SELECT id FROM t WHERE status = 'in_review'";
    expect(await store.all(q)).toEqual([]);
    await store.run("UPDATE t SET status = 'in_review'");
    expect(await store.all(q)).toEqual([{ id: 'a' }]);
  });

  it('reads its own committed writes from the reader connections', async () => {
    const rows = await store.write("INSERT INTO t VALUES ('b', 'approved', $n) RETURNING n", { n: 7 });
    expect(rows).toEqual([{ n: 7 }]);
    expect(await store.get("SELECT n FROM t WHERE id = 'b'")).toEqual({ n: 7 });
  });

  it('returns safe BIGINTs as numbers and larger ones as bigint', async () => {
    expect(await store.get('SELECT 9007199254740991::BIGINT AS a, 9007199254740993::BIGINT AS b')).toEqual({ a: 9007199254740991, b: 9007199254740993n });
  });

  it('rolls a failed transaction back whole', async () => {
    await expect(
      store.transaction(async (tx) => {
        await tx.run("INSERT INTO t VALUES ('c', 'approved', 1)");
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await store.get("SELECT count(*) AS n FROM t WHERE id = 'c'")).toEqual({ n: 0 });
  });

  it('serializes concurrent write transactions instead of failing them', async () => {
    await store.run("INSERT INTO t VALUES ('counter', 'x', 0)");
    await Promise.all(
      Array.from({ length: 20 }, () =>
        store.transaction(async (tx) => {
          const row = await tx.get("SELECT n FROM t WHERE id = 'counter'");
          await tx.run("UPDATE t SET n = $n WHERE id = 'counter'", { n: Number(row?.['n']) + 1 });
        }),
      ),
    );
    expect(await store.get("SELECT n FROM t WHERE id = 'counter'")).toEqual({ n: 20 });
  });

  it('keeps a memoized read until the next write, and never one read while a write ran', async () => {
    let reads = 0;
    const count = () =>
      store.memo('t-count', async () => {
        reads++;
        return Number((await store.get('SELECT count(*) AS n FROM t'))?.['n']);
      });
    const before = await count();
    expect(await count()).toBe(before);
    expect(reads).toBe(1);
    for (const write of [
      () => store.run("INSERT INTO t VALUES ('m1', 'approved', 1)"),
      () => store.write("INSERT INTO t VALUES ('m2', 'approved', 1) RETURNING id"),
      () => store.transaction((tx) => tx.run("INSERT INTO t VALUES ('m3', 'approved', 1)")),
      () => store.writerSession((s) => s.run("INSERT INTO t VALUES ('m4', 'approved', 1)")),
    ]) {
      const was = await count();
      await write();
      expect(await count()).toBe(was + 1);
    }
    expect(reads).toBe(5);
    // A read made while a write is under way is not kept: a commit may follow it before the write ends.
    const gate = () => {
      let open = (): void => undefined;
      const opened = new Promise<void>((r) => (open = r));
      return { open, opened };
    };
    const [atFirst, goOn, atSecond, finish] = [gate(), gate(), gate(), gate()];
    const session = store.writerSession(async (s) => {
      atFirst.open();
      await goOn.opened;
      await s.run("INSERT INTO t VALUES ('m5', 'approved', 1)");
      atSecond.open();
      await finish.opened;
    });
    await atFirst.opened;
    const first = await count();
    goOn.open();
    await atSecond.opened;
    expect(await count()).toBe(first + 1);
    finish.open();
    await session;
    expect(reads).toBe(7);
  });

  it('a read cancelled at any moment around its start is interrupted, not left running', async () => {
    // Runs for many minutes unless interrupted. The aborts land at different moments, before and after
    // DuckDB begins the statement: one that landed before was once dropped, and the read ran on.
    const endless = 'SELECT count(*) AS n FROM range(1000000000000) t(i) WHERE i % 7 = 3';
    for (let delayMs = 0; delayMs <= 12; delayMs += 2) {
      const controller = new AbortController();
      const read = store.all(endless, [], { signal: controller.signal });
      setTimeout(() => controller.abort(), delayMs);
      await expect(read).rejects.toBeInstanceOf(QueryCancelledError);
      // Sync microtask gaps as well: abort right after the read has queued for its connection.
      const again = new AbortController();
      const next = store.all(endless, [], { signal: again.signal });
      for (let i = 0; i < delayMs; i++) await Promise.resolve();
      again.abort();
      await expect(next).rejects.toBeInstanceOf(QueryCancelledError);
    }
    expect(store.readsInFlight).toBe(0);
  });

  it('a second process cannot open the same file', async () => {
    const { spawnSync } = await import('node:child_process');
    const script = `import('@duckdb/node-api').then(async ({ DuckDBInstance }) => { try { await DuckDBInstance.create(${JSON.stringify(store.path)}); process.exit(0) } catch (e) { console.log(e.message); process.exit(3) } })`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(r.status).toBe(3);
    expect(r.stdout).toMatch(/lock/i);
  });
});
