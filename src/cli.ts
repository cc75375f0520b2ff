import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { Command, CommanderError, Option } from 'commander';
import { sendAdminCommand } from './admin/admin-client.js';
import { runCommand, type CommandName, type CommandResult } from './admin/commands.js';
import { adminSocketPath, databasePath } from './admin/socket-path.js';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { ACCOUNT_FEATURES } from './domain/accounts/account-schemas.js';
import { ApiError } from './errors/api-error.js';
import { isResourceError, processRun, type IngestRun } from './ingest/ingest-runs.js';
import { createLogger } from './logger.js';
import { DEMO_DAYS, DEMO_EVENTS, ensureDemoAccount } from './runtime/demo.js';
import { RedisUnavailableError } from './runtime/redis.js';
import { startService } from './runtime/service.js';
import { migrate } from './store/migrations.js';
import { Store, StoreLockedError } from './store/store.js';

export interface CliIO {
  env: Readonly<Record<string, string | undefined>>;
  stdout: Writable;
  stderr: Writable;
  cwd: string;
  /** Resolves when serve should stop (SIGINT/SIGTERM); main.ts wires the signals. */
  stopSignal?: Promise<string>;
}

/** Exit codes: 0 ok, 1 failure, 2 bad input (usage or validation). */
const EXIT_USAGE = 2;

class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/**
 * Runs an operator command: through the running service when one owns the
 * data dir (its admin socket answers), otherwise against the store directly.
 */
async function execute<N extends CommandName>(config: Config, name: N, input: unknown): Promise<CommandResult<N>> {
  const remote = await sendAdminCommand(adminSocketPath(config.dataDir), name, input);
  if (remote.reached) return remote.result as CommandResult<N>;
  let store: Store;
  try {
    store = await Store.open(databasePath(config.dataDir), { readers: 1, memoryLimit: config.duckdbMemoryLimit });
  } catch (err) {
    if (err instanceof StoreLockedError) {
      throw new CliFailure(`${err.message}. If an adsvc serve owns ${config.dataDir}, its admin socket is not answering; otherwise stop the other process.`, 1);
    }
    throw err;
  }
  try {
    await migrate(store, systemClock);
    return await runCommand({ store, clock: systemClock, config }, name, input);
  } finally {
    await store.close();
  }
}

/** `adsvc ingest`: start a run (through serve, or here), then wait for its end unless told not to. */
async function ingest(config: Config, files: string[], account: string | null, wait: boolean): Promise<IngestRun> {
  const input = { files: files.map((f) => resolve(f)), account };
  const socket = adminSocketPath(config.dataDir);
  const remote = await sendAdminCommand(socket, 'ingest.start', input);
  if (remote.reached) {
    let run = remote.result as IngestRun;
    while (wait && (run.status === 'queued' || run.status === 'running')) {
      await new Promise((r) => setTimeout(r, 200));
      const next = await sendAdminCommand(socket, 'ingest.get', { run: run.id });
      if (!next.reached) throw new CliFailure(`the service stopped while run ${run.id} was under way; it resumes when serve starts again`, 1);
      run = next.result as IngestRun;
    }
    return run;
  }
  const store = await Store.open(databasePath(config.dataDir), { readers: 1, memoryLimit: config.duckdbMemoryLimit });
  try {
    await migrate(store, systemClock);
    const ctx = { store, clock: systemClock, config };
    const run = await runCommand(ctx, 'ingest.start', input);
    // No service here: process now (or leave it queued for the next serve with --no-wait).
    if (wait) {
      await processRun({ ...ctx, ingestChunkLines: config.ingestChunkLines }, run.id).catch((err: unknown) => {
        if (!isResourceError(err)) throw err;
        const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
        throw new CliFailure(`run ${run.id} stopped for want of resources (${message}); it stays open and resumes when serve starts, or raise ADSVC_DUCKDB_MEMORY_LIMIT`, 1);
      });
    }
    return await runCommand(ctx, 'ingest.get', { run: run.id });
  } finally {
    await store.close();
  }
}

/** `timezone` -> `--timezone`, `enable[1]` -> `--enable`: errors name the flag the user typed. */
const flagFor = (param: string | null): string => (param === null ? '' : `--${param.replace(/\[\d+\]$/, '').replaceAll('_', '-')}`);

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const write = (s: Writable, text: string) => s.write(text.endsWith('\n') ? text : text + '\n');
  const out = (json: boolean, value: unknown, human: () => string) => write(io.stdout, json ? JSON.stringify(value, null, 2) : human());
  let exitCode = 0;

  const program = new Command('adsvc')
    .description('adsvc: an open, self-hostable advertising management API with a DuckDB insights engine')
    .option('--data-dir <dir>', 'data directory (default: $ADSVC_DATA_DIR or ./data)')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  // Flags override the environment; loadConfig stays the one place that validates both.
  const config = (overrides: Record<string, string> = {}): Config => {
    const dataDir = program.opts<{ dataDir?: string }>().dataDir;
    return loadConfig({ ...io.env, ...(dataDir === undefined ? {} : { ADSVC_DATA_DIR: dataDir }), ...overrides }, io.cwd);
  };

  program
    .command('serve')
    .description('run the HTTP API (under /v1), the job workers and the admin socket; stops cleanly on SIGINT/SIGTERM')
    .option('--port <port>', 'listen port (default: $PORT or 8080)')
    .option('--demo', 'create (once) a demo account with every feature enabled and print an API key for it')
    .action(async (opts: { port?: string; demo?: boolean }) => {
      const cfg = config(opts.port === undefined ? {} : { PORT: opts.port });
      const log = createLogger(cfg.logLevel, 1);
      const service = await startService({ config: cfg, clock: systemClock, log, pathVar: io.env['PATH'] });
      if (opts.demo) {
        const demo = await ensureDemoAccount(
          { store: service.store, clock: systemClock, config: cfg, ingestJobs: service.jobs.ingestJobs, adReviews: service.jobs.adReviews },
          cfg.dataDir,
        );
        write(
          io.stderr,
          [
            `demo account ${demo.accountId}${demo.created ? ' (new)' : ''}; API key (shown once):`,
            `  ${demo.key.key}`,
            ...(demo.ingestRun === undefined ? [] : [`loading ${DEMO_EVENTS} events over ${DEMO_DAYS} days (ingest run ${demo.ingestRun}; a few seconds)`]),
            `try: curl -H "Authorization: Bearer ${demo.key.key}" ${service.url}/v1/ad_account`,
          ].join('\n'),
        );
      }
      const signal = await (io.stopSignal ?? new Promise<string>(() => undefined));
      log.info({ signal }, 'signal received');
      const { drained } = await service.close();
      exitCode = drained ? 0 : 1;
    });

  const accounts = program.command('accounts').description('manage ad accounts');
  accounts
    .command('create')
    .description('create an ad account and print it with its first API key (which has the billing permission)')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--url <url>', 'primary destination URL (http or https)')
    .requiredOption('--timezone <iana>', 'IANA timezone, e.g. America/New_York')
    .requiredOption('--currency <code>', 'ISO 4217 currency code, e.g. USD')
    .addOption(new Option('--enable <features>', `comma-separated features: ${ACCOUNT_FEATURES.join(', ')}`))
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; url: string; timezone: string; currency: string; enable?: string; json?: boolean }) => {
      const enable = opts.enable === undefined ? [] : opts.enable.split(',').map((s) => s.trim()).filter((s) => s !== '');
      const r = await execute(config(), 'accounts.create', { name: opts.name, url: opts.url, timezone: opts.timezone, currency: opts.currency, enable });
      out(opts.json === true, r, () =>
        [
          `created ad account ${r.account.id} (${r.account.name}, ${r.account.timezone}, ${r.account.currency_code})`,
          `features: ${r.account.features.join(', ') || 'none'}`,
          `API key ${r.api_key.id} (billing permission; shown once):`,
          `  ${r.api_key.key}`,
        ].join('\n'),
      );
    });

  accounts
    .command('set-timezone')
    .description("change an account's timezone (refused while a daily spend limit exists)")
    .requiredOption('--account <id>', 'ad account id (adacct_...)')
    .requiredOption('--timezone <iana>', 'IANA timezone, e.g. Europe/Berlin')
    .option('--json', 'print JSON')
    .action(async (opts: { account: string; timezone: string; json?: boolean }) => {
      const r = await execute(config(), 'accounts.set-timezone', { account: opts.account, timezone: opts.timezone });
      out(opts.json === true, r, () => `ad account ${r.id} now uses ${r.timezone}`);
    });

  program
    .command('ingest')
    .description('load event files (NDJSON/JSONL, CSV, optionally .gz, or Parquet) and report the run')
    .argument('<files...>', 'event files; the format is chosen by the extension')
    .option('--account <id>', 'every event must belong to this ad account')
    .option('--no-wait', 'return once the run is recorded instead of waiting for its result')
    .option('--json', 'print JSON')
    .action(async (files: string[], opts: { account?: string; wait: boolean; json?: boolean }) => {
      const run = await ingest(config(), files, opts.account ?? null, opts.wait);
      out(opts.json === true, run, () =>
        [
          `run ${run.id}: ${run.status}${run.error ? ` (${run.error})` : ''}`,
          `rows read ${run.rows_read}, stored ${run.stored}, duplicates ${run.duplicates}, quarantined ${run.quarantined}` +
            (run.quarantined > 0 ? ` (${Object.entries(run.quarantined_by_reason).map(([r, n]) => `${r} ${n}`).join(', ')})` : ''),
        ].join('\n'),
      );
      if (run.status === 'failed') exitCode = 1;
    });

  program
    .command('generate')
    .description("write a deterministic file of realistic events for an account's ads (format by extension)")
    .requiredOption('--account <id>', 'ad account id (adacct_...)')
    .requiredOption('--days <n>', 'whole local days of traffic, ending before --end-date')
    .requiredOption('--events <n>', 'rows to write (including about 0.5% duplicates and 0.1% bad rows)')
    .option('--seed <n>', 'the same seed and arguments give the same file', '1')
    .requiredOption('--out <file>', 'output: .ndjson, .jsonl, .csv (each optionally .gz) or .parquet')
    .option('--end-date <yyyy-mm-dd>', "first local day after the window (default: today in the account's timezone)")
    .option('--create-entities', 'first create campaigns (impressions, clicks, and conversions where enabled), two ad groups each, three ads per group')
    .option('--json', 'print JSON')
    .action(async (opts: { account: string; days: string; events: string; seed: string; out: string; endDate?: string; createEntities?: boolean; json?: boolean }) => {
      const r = await execute(config(), 'events.generate', {
        account: opts.account,
        days: Number(opts.days),
        events: Number(opts.events),
        seed: Number(opts.seed),
        out: resolve(opts.out),
        ...(opts.endDate === undefined ? {} : { end_date: opts.endDate }),
        create_entities: opts.createEntities === true,
      });
      out(opts.json === true, r, () => `wrote ${r.rows} events (${r.format}) for ${r.ads} ads, ${r.from} to ${r.to}, to ${r.out}`);
    });

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .description('create an API key for an ad account and print it (shown once)')
    .requiredOption('--account <id>', 'ad account id (adacct_...)')
    .option('--billing', 'grant the permission to manage billing (spend limits)')
    .option('--json', 'print JSON')
    .action(async (opts: { account: string; billing?: boolean; json?: boolean }) => {
      const r = await execute(config(), 'keys.create', { account: opts.account, billing: opts.billing === true });
      out(opts.json === true, r, () => [`API key ${r.id} for ${r.ad_account_id}${r.billing ? ' (billing permission)' : ''}; shown once:`, `  ${r.key}`].join('\n'));
    });

  const wantsJson = argv.includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version') return 0;
      return EXIT_USAGE; // commander already printed the message and the help
    }
    let failure: CliFailure;
    if (err instanceof ApiError) {
      const flag = flagFor(err.param);
      failure = new CliFailure(`${flag === '' ? '' : `invalid ${flag}: `}${err.message}`, err.status < 500 ? EXIT_USAGE : 1, err.toBody());
    } else if (err instanceof ConfigError || err instanceof RedisUnavailableError || err instanceof StoreLockedError) {
      failure = new CliFailure(err.message, 1);
    } else if (err instanceof CliFailure) {
      failure = err;
    } else {
      failure = new CliFailure(err instanceof Error ? (err.stack ?? err.message) : String(err), 1);
    }
    if (wantsJson && failure.body !== undefined) write(io.stdout, JSON.stringify(failure.body, null, 2));
    write(io.stderr, `adsvc: ${failure.message}`);
    return failure.exitCode;
  }
}
