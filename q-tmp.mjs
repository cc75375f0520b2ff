import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(process.argv[2], { memory_limit: '1GB' });
const c = await db.connect();
for (const sql of process.argv.slice(3)) {
  const t0 = performance.now();
  const r = await c.runAndReadAll(sql);
  console.log(`-- ${(performance.now() - t0).toFixed(0)} ms: ${sql.slice(0, 100)}`);
  console.table(r.getRowObjectsJson().slice(0, 40));
}
