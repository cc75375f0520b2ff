import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // DuckDB is a native addon: separate processes keep each file's instances apart.
    pool: 'forks',
    testTimeout: 180_000,
    hookTimeout: 180_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
