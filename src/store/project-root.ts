import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The package root (where sql/ lives), found from this module's own location so
 * it is the same whether the code runs from src/ (tests) or dist/src/ (built).
 */
export function projectRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && /"name":\s*"adsvc"/.test(readFileSync(pkg, 'utf8'))) return (cached = dir);
    const parent = dirname(dir);
    if (parent === dir) throw new Error('adsvc package root not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}
