// node z.tmp.mjs DB FILE [memLimit|-] [chunkLines] : one load through loadEventFile; prints time and peak RSS.
import { readFileSync } from 'node:fs';
const [db, file, mem, chunk] = process.argv.slice(2);
const { Store } = await import('./dist/src/store/store.js');
const { loadEventFile } = await import('./dist/src/ingest/load-events.js');
const { systemClock } = await import('./dist/src/clock.js');
const store = await Store.open(db, { readers: 1, ...(mem && mem !== '-' ? { memoryLimit: mem } : {}) });
const ws = store.writerSession.bind(store);
const wrap = (f) => async (t, p) => { try { return await f(t, p); } catch (e) { console.log('FAILED SQL', t.slice(0, 900)); throw e; } };
store.writerSession = (fn) => ws((session) => fn({ ...session, get: wrap(session.get), all: wrap(session.all), run: async (t, p) => { const t0 = performance.now(); try { return await session.run(t, p); } catch (e) { console.log('FAILED SQL', t.slice(0, 600)); throw e; } finally { if (process.env.SQLT) console.log('sql', (performance.now()-t0).toFixed(0), t.replace(/\s+/g,' ').slice(0, 90)); } } }));
const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
let peak = 0; const iv = setInterval(() => { peak = Math.max(peak, hwm()); }, 200);
const fmt = file.endsWith('.parquet') ? 'parquet' : file.endsWith('.csv') ? 'csv' : 'ndjson';
const t0 = performance.now();
try {
  const s = await loadEventFile({ store, clock: systemClock }, { runId: 'exp', path: file, format: fmt, source: file, scopeAccountId: null }, chunk ? { chunkLines: Number(chunk) } : {});
  console.log(JSON.stringify(s));
} catch (e) { console.log('FAILED', e.message); }
const secs = (performance.now() - t0) / 1000;
clearInterval(iv);
console.log(`load ${secs.toFixed(1)} s, ${(10e6 / secs).toFixed(0)} ev/s, peak RSS ${Math.max(peak, hwm()).toFixed(0)} MiB`);
await store.close();
