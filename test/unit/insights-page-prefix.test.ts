import { describe, expect, it } from 'vitest';
import { pageSnapshots, prefixLength } from '../../src/insights/page-snapshots.js';
import type { Store } from '../../src/store/store.js';

/**
 * First-page prefixes (page-snapshots.ts): a cursor page is cut from the kept
 * first rows only when they decide it; otherwise the caller reads the whole
 * result (null here).
 */
const NOW = 1_800_000_000_000;
// Prefixes live in memory: their methods never reach the store.
const snapshots = () => pageSnapshots({} as Store);
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ k0: i * 10, k1: `r${i}`, v: i }));
const KEYS = ['k0', 'k1'];
const at = (i: number) => [i * 10, `r${i}`];

describe('first-page prefixes', () => {
  it('reads three pages, never less than one', () => {
    expect(prefixLength(25)).toBe(75);
    expect(prefixLength(1)).toBe(3);
    expect(prefixLength(2000)).toBe(4000);
  });

  it('cuts pages after and before a cursor row inside the prefix', () => {
    const s = snapshots();
    s.keepPrefix('a', rows(30), false, NOW);
    expect(s.readPrefix('a', 'after', at(4), KEYS, 5, NOW)?.map((r) => r['v'])).toEqual([5, 6, 7, 8, 9, 10]);
    // Backwards: the rows before the cursor, nearest first (all of them are in any prefix).
    expect(s.readPrefix('a', 'before', at(4), KEYS, 5, NOW)?.map((r) => r['v'])).toEqual([3, 2, 1, 0]);
    expect(s.readPrefix('a', 'before', at(20), KEYS, 2, NOW)?.map((r) => r['v'])).toEqual([19, 18, 17]);
  });

  it('gives up where the prefix cannot tell', () => {
    const s = snapshots();
    s.keepPrefix('a', rows(30), false, NOW);
    // Too few rows follow in an incomplete prefix: the next rows may lie beyond it.
    expect(s.readPrefix('a', 'after', at(25), KEYS, 5, NOW)).toBeNull();
    // A cursor row beyond the prefix, or keys that match no row.
    expect(s.readPrefix('a', 'after', [400, 'r40'], KEYS, 5, NOW)).toBeNull();
    expect(s.readPrefix('a', 'after', [40, 'r5'], KEYS, 5, NOW)).toBeNull();
    expect(s.readPrefix('b', 'after', at(1), KEYS, 5, NOW)).toBeNull();
    // Expired.
    expect(s.readPrefix('a', 'after', at(1), KEYS, 5, NOW + 16 * 60_000)).toBeNull();
  });

  it('ends the result where a complete prefix ends', () => {
    const s = snapshots();
    s.keepPrefix('c', rows(30), true, NOW);
    expect(s.readPrefix('c', 'after', at(25), KEYS, 5, NOW)?.map((r) => r['v'])).toEqual([26, 27, 28, 29]);
    expect(s.readPrefix('c', 'after', at(29), KEYS, 5, NOW)).toEqual([]);
  });

  it('keeps the most recently used prefixes within its row budget', async () => {
    const s = snapshots();
    for (let i = 0; i < 12; i++) s.keepPrefix(`k${i}`, rows(5000), false, NOW + i);
    expect(s.readPrefix('k0', 'after', at(1), KEYS, 5, NOW + 20)).toBeNull();
    expect(s.readPrefix('k11', 'after', at(1), KEYS, 5, NOW + 20)?.length).toBe(6);
    await s.clear().catch(() => undefined);
    expect(s.readPrefix('k11', 'after', at(1), KEYS, 5, NOW + 20)).toBeNull();
  });
});
