import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DuckDBInstance, listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { Mutex } from './mutex.js';

export type SqlParams = DuckDBValue[] | Record<string, DuckDBValue>;
/** A row as read: BIGINTs in the safe range come back as numbers. */
export type Row = Record<string, unknown>;

export interface Queryable {
  all(sql: string, params?: SqlParams): Promise<Row[]>;
  get(sql: string, params?: SqlParams): Promise<Row | undefined>;
  run(sql: string, params?: SqlParams): Promise<void>;
  /** A write that returns rows (INSERT/UPDATE ... RETURNING); on the store it takes the write lock. */
  write(sql: string, params?: SqlParams): Promise<Row[]>;
}

/** The writer connection held for a while: autocommitted statements, and transactions on the same connection. */
export interface WriterSession extends Queryable {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

/** A list parameter (for `list_contains($ids, id)` and the like). */
export const sqlList = (values: readonly (string | number)[]): DuckDBValue => listValue([...values]);

/** Memoized reads kept at most; past this all are dropped (any write makes them stale anyway). */
const MAX_MEMOS = 10_000;

export class StoreLockedError extends Error {
  override readonly name = 'StoreLockedError';
}

/** A read stopped by its AbortSignal (the client that asked for it went away). */
export class QueryCancelledError extends Error {
  override readonly name = 'QueryCancelledError';
}

function normalize(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  }
  if (Array.isArray(value)) return value.map(normalize);
  return value;
}

/**
 * Every call prepares its statement afresh. Do not cache prepared statements:
 * DuckDB plans with the table statistics of the moment it prepares, and a
 * cached plan for `WHERE status = 'in_review'`, prepared while no row had that
 * value, keeps answering "no rows" after rows change (seen with DuckDB 1.5.6
 * from Node; test/integration/store.test.ts pins this).
 */
class ConnectionQueryable implements Queryable {
  constructor(protected readonly conn: DuckDBConnection) {}

  async all(text: string, params?: SqlParams): Promise<Row[]> {
    const rows = (await this.conn.runAndReadAll(text, params)).getRowObjectsJS();
    for (const row of rows) for (const k of Object.keys(row)) row[k] = normalize(row[k]) as never;
    return rows as Row[];
  }

  async get(text: string, params?: SqlParams): Promise<Row | undefined> {
    return (await this.all(text, params))[0];
  }

  write(text: string, params?: SqlParams): Promise<Row[]> {
    return this.all(text, params);
  }

  /** Without parameters the text may be a script of several statements (migrations). */
  async run(text: string, params?: SqlParams): Promise<void> {
    await this.conn.run(text, params);
  }

  async prepare(text: string): Promise<void> {
    await this.conn.prepare(text);
  }
}

/**
 * The DuckDB store: one database file, owned by one process. Writes go through
 * one connection under a lock, so write transactions never conflict with each
 * other; reads use a small pool of other connections and see committed data.
 */
export class Store implements Queryable {
  private readonly writeLock = new Mutex();
  private readonly readLocks: Mutex[];
  private readonly writerQ: ConnectionQueryable;
  private readonly readerQs: ConnectionQueryable[];
  private nextReader = 0;
  private closed = false;
  private reads = 0;
  /** Bumped when a write starts and when it ends (writes run one at a time): odd while one is under way. */
  private writeEpoch = 0;
  private readonly memos = new Map<string, { epoch: number; value: unknown }>();

  private constructor(
    readonly path: string,
    private readonly instance: DuckDBInstance,
    private readonly writer: DuckDBConnection,
    private readonly readers: DuckDBConnection[],
  ) {
    this.readLocks = readers.map(() => new Mutex());
    this.writerQ = new ConnectionQueryable(writer);
    this.readerQs = readers.map((c) => new ConnectionQueryable(c));
  }

  /** Opens (creating if needed) the database file; `:memory:` for a throwaway store. */
  static async open(path: string, options: { readers?: number; threads?: number; memoryLimit?: string | undefined } = {}): Promise<Store> {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    let instance: DuckDBInstance;
    try {
      // An ASOF join whose left side is estimated small runs as a nested loop;
      // inside a big load the estimate can be far off (seen: attribution of a
      // 10M-event load took 555 s instead of seconds). Always use the ASOF join.
      const settings: Record<string, string> = { asof_loop_join_threshold: '0' };
      if (options.threads !== undefined) settings['threads'] = String(options.threads);
      if (options.memoryLimit !== undefined) settings['memory_limit'] = options.memoryLimit;
      instance = await DuckDBInstance.create(path, settings);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/lock/i.test(message)) {
        throw new StoreLockedError(`the database ${path} is in use by another process (${message.split('\n')[0]})`);
      }
      throw err;
    }
    const writer = await instance.connect();
    const readers: DuckDBConnection[] = [];
    for (let i = 0; i < (options.readers ?? 2); i++) readers.push(await instance.connect());
    return new Store(path, instance, writer, readers);
  }

  private async reader<T>(fn: (q: ConnectionQueryable) => Promise<T>, signal?: AbortSignal): Promise<T> {
    this.assertOpen();
    const i = this.nextReader++ % this.readers.length;
    this.reads++;
    try {
      return await (this.readLocks[i] as Mutex).run(async () => {
        if (signal === undefined) return fn(this.readerQs[i] as ConnectionQueryable);
        if (signal.aborted) throw new QueryCancelledError('the read was cancelled before it started');
        // DuckDB stops the statement running on this connection; it fails with an interrupt error. An
        // interrupt that lands before DuckDB has begun the statement is dropped when it begins, so it is
        // repeated until the read ends (the connection runs nothing else while this read holds it).
        const connection = this.readers[i] as DuckDBConnection;
        let repeat: ReturnType<typeof setInterval> | undefined;
        const interrupt = (): void => {
          connection.interrupt();
          repeat = setInterval(() => connection.interrupt(), 20);
        };
        signal.addEventListener('abort', interrupt, { once: true });
        try {
          return await fn(this.readerQs[i] as ConnectionQueryable);
        } catch (err) {
          throw signal.aborted ? new QueryCancelledError('the read was cancelled', { cause: err }) : err;
        } finally {
          signal.removeEventListener('abort', interrupt);
          clearInterval(repeat);
        }
      });
    } finally {
      this.reads--;
    }
  }

  /** Reads running or waiting for a reader connection (the overload check sheds load past a limit). */
  get readsInFlight(): number {
    return this.reads;
  }

  /**
   * A read on one of the reader connections; writes go through run, write or
   * transaction. With a signal, aborting it interrupts the statement.
   */
  all(text: string, params?: SqlParams, options: { signal?: AbortSignal } = {}): Promise<Row[]> {
    return this.reader((q) => q.all(text, params), options.signal);
  }

  get(text: string, params?: SqlParams): Promise<Row | undefined> {
    return this.reader((q) => q.get(text, params));
  }

  /**
   * A small read kept until the next write: while no write has started since
   * it was read, reading again would give the same rows. The store is the only
   * writer of its file (one process owns it, and every write goes through
   * run, write, transaction or writerSession), so this holds. For per-request
   * lookups such as an insights read's data watermark, which cost a DuckDB
   * round trip (1-2 ms) each. `read` must not write; its value must not be
   * changed by callers.
   */
  async memo<T>(key: string, read: () => Promise<T>): Promise<T> {
    const epoch = this.writeEpoch;
    const kept = this.memos.get(key);
    if (kept !== undefined && kept.epoch === epoch) return kept.value as T;
    const value = await read();
    // Kept only when no write was under way or began meanwhile.
    if (epoch % 2 === 0 && this.writeEpoch === epoch) {
      if (this.memos.size >= MAX_MEMOS) this.memos.clear();
      this.memos.set(key, { epoch, value });
    }
    return value;
  }

  /** Takes the write lock for `fn`, marking the write's start and end for `memo`. */
  private writing<T>(fn: () => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.writeLock.run(async () => {
      this.writeEpoch++;
      try {
        return await fn();
      } finally {
        this.writeEpoch++;
      }
    });
  }

  /** A single autocommitted write. */
  run(text: string, params?: SqlParams): Promise<void> {
    return this.writing(() => this.writerQ.run(text, params));
  }

  write(text: string, params?: SqlParams): Promise<Row[]> {
    return this.writing(() => this.writerQ.all(text, params));
  }

  /** Runs `fn` in one write transaction: all of it commits, or none of it. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.writing(() => this.inTransaction(fn));
  }

  /**
   * Holds the writer connection for `fn`: its statements autocommit one by
   * one, and `session.transaction` runs a transaction on the same connection,
   * so temp tables made before it are there inside it. Bulk scratch tables
   * belong outside the transaction: DuckDB appends millions of rows from a
   * temp table made inside the same transaction about half as fast (10M
   * events: 24.7 s against 12.4 s).
   */
  writerSession<T>(fn: (session: WriterSession) => Promise<T>): Promise<T> {
    const q = this.writerQ;
    const session: WriterSession = {
      all: (text, params) => q.all(text, params),
      get: (text, params) => q.get(text, params),
      run: (text, params) => q.run(text, params),
      write: (text, params) => q.write(text, params),
      transaction: (f) => this.inTransaction(f),
    };
    return this.writing(() => fn(session));
  }

  private async inTransaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    await this.writer.run('BEGIN TRANSACTION');
    try {
      const out = await fn(this.writerQ);
      await this.writer.run('COMMIT');
      return out;
    } catch (err) {
      await this.writer.run('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  /** Prepares a statement without running it: checks that it binds against the schema. */
  async prepareCheck(text: string): Promise<void> {
    await this.reader((q) => q.prepare(text));
  }

  /** Waits for writes under way, then releases the file so another process may open it. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.writeLock.run(async () => undefined);
    await Promise.all(this.readLocks.map((m) => m.run(async () => undefined)));
    this.closed = true;
    for (const c of [this.writer, ...this.readers]) c.closeSync();
    this.instance.closeSync();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }
}
