#!/usr/bin/env node
import { runCli } from './cli.js';

/**
 * Process entry (the `adsvc` bin). The only place that touches process
 * globals: argv, env, signals and the exit code.
 */
const stopSignal = new Promise<string>((resolve) => {
  let received = false;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (received) {
      process.stderr.write(`adsvc: second ${sig}, exiting now\n`);
      process.exit(130);
    }
    received = true;
    resolve(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
});

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  stopSignal,
});
process.exit(code);
