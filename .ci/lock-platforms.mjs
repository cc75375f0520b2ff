// Completes package-lock.json with the other platforms' optional native packages.
//
// Why: the npm registry mirror on our machines serves only the linux-x64
// builds of packages such as @duckdb/node-bindings-*, so `npm install` here
// cannot record the other platforms' entries, and `npm ci` then refuses the
// lock ("Missing: ... from lock file"). Each missing entry is added as an
// optional package restricted to its os/cpu (read from its name), which
// `npm ci` skips on every other platform without fetching it.
//
// Run after changing dependencies: node .ci/lock-platforms.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openbsd', 'sunos', 'aix'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return undefined;
  const libc = parts.includes('musl') ? 'musl' : os === 'linux' && parts.includes('gnu') ? 'glibc' : undefined;
  return { os, cpu, libc };
}

let added = 0;
for (const [key, pkg] of Object.entries(lock.packages)) {
  for (const [dep, spec] of Object.entries(pkg.optionalDependencies ?? {})) {
    const target = `node_modules/${dep}`;
    if (lock.packages[target] || (key && lock.packages[`${key}/node_modules/${dep}`])) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec)) {
      console.error(`cannot complete ${dep}@${spec} (needs an exact version and a platform in its name)`);
      process.exitCode = 1;
      continue;
    }
    lock.packages[target] = {
      version: spec,
      cpu: [platform.cpu],
      ...(pkg.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} platform entries to package-lock.json`);
