#!/usr/bin/env node
// The package bin: runs the compiled CLI (built by `npm ci` through the prepare script).
import('../dist/src/main.js').catch((err) => {
  process.stderr.write(`adsvc: cannot start (${err && err.message ? err.message : err}); run "npm run build" first\n`);
  process.exit(1);
});
