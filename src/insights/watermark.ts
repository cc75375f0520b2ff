import type { Queryable } from '../store/store.js';

/**
 * The data watermark: the sequence number of the last committed event load.
 * Rollup rows carry the load that added them and attributions the loads
 * between which they held, so a query at watermark W reads exactly the data
 * of loads up to W, whatever commits while a client pages.
 */
export async function currentWatermark(db: Queryable): Promise<number> {
  const row = await db.get('SELECT coalesce(max(seq), 0) AS w FROM data_loads');
  return Number(row?.['w'] ?? 0);
}

/** Cursors made before this watermark read data that compaction has merged. */
export async function compactionHorizon(db: Queryable): Promise<number> {
  const row = await db.get('SELECT coalesce(max(horizon), 0) AS h FROM data_compactions');
  return Number(row?.['h'] ?? 0);
}
