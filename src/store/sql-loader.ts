import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-root.js';

const cache = new Map<string, string>();
const NAME = /^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9-]*)*$/;

/**
 * Static statements live in sql/queries/<name>.sql, one per file, each with a
 * `-- purpose / params` header. They are read once and cached by name.
 */
export function sql(name: string): string {
  const hit = cache.get(name);
  if (hit !== undefined) return hit;
  if (!NAME.test(name)) throw new Error(`invalid query name: ${name}`);
  const text = readFileSync(join(projectRoot(), 'sql', 'queries', `${name}.sql`), 'utf8');
  cache.set(name, text);
  return text;
}
