import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { DateTime } from 'luxon';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import type { AdReviewScheduler } from '../domain/ads/ads.js';
import { accountAds, createGeneratorEntities } from '../generate/entities.js';
import { writeEventFile, type GenerateResult } from '../generate/generate-events.js';
import { formatOf } from '../ingest/event-contract.js';
import { createAccount, requireAccount, setAccountTimezone, toWireAccount, type AdAccount } from '../domain/accounts/accounts.js';
import { parseOrThrow } from '../errors/zod-issues.js';
import { createRun, describeFiles, getRun, type IngestRun, type IngestScheduler } from '../ingest/ingest-runs.js';
import { dailyLimitExists } from '../domain/spend-limits/spend-limits.js';
import { ACCOUNT_FEATURES, type AccountFeature } from '../domain/accounts/account-schemas.js';
import { createApiKey, type CreatedKey } from '../domain/api-keys.js';
import { ApiError } from '../errors/api-error.js';
import type { AccountRecord } from '../store/repositories/account-repository.js';
import type { Store } from '../store/store.js';

/**
 * Operator commands behind the CLI. The same functions run in the CLI's own
 * process (when no service owns the data dir) or inside `serve` (when one
 * does, reached over the admin socket), so both ways behave identically.
 */
export interface CommandContext {
  store: Store;
  clock: Clock;
  config: Config;
  /** Inside serve: runs are queued for its workers. In the CLI's own process: absent, and the CLI processes the run itself. */
  ingestJobs?: IngestScheduler;
  /** Inside serve: new ads go to review at once. Elsewhere: absent; serve's reconciler reviews them when it starts. */
  adReviews?: AdReviewScheduler;
}

const GenerateInput = z
  .object({
    account: z.string().min(1),
    days: z.number().int().min(1).max(3660),
    events: z.number().int().min(1).max(2_000_000_000),
    seed: z.number().int().min(0).max(2 ** 31 - 1),
    out: z
      .string()
      .min(1)
      .refine((p) => isAbsolute(p), 'must be an absolute path')
      .refine((p) => formatOf(p) !== undefined, 'must end in .ndjson, .jsonl, .csv (each optionally .gz) or .parquet'),
    end_date: z.iso.date().optional(),
    create_entities: z.boolean().default(false),
  })
  .strict();

/** Ads created outside serve wait in review until a service starts and its reconciler picks them up. */
const laterReviews: AdReviewScheduler = { schedule: async () => undefined };

const IngestStartInput = z.object({ files: z.array(z.string().min(1)).min(1).max(1000), account: z.string().min(1).nullable().default(null) }).strict();
const RunInput = z.object({ run: z.string().min(1) }).strict();

export interface AdminAccount extends AdAccount {
  features: AccountFeature[];
}

const FEATURE_COLUMN: Record<AccountFeature, keyof AccountRecord> = {
  brand: 'brand_enabled',
  conversion_bidding: 'conversion_bidding_enabled',
  product_segments: 'product_segments_enabled',
  zero_impression_products: 'zero_impression_products_enabled',
  postpaid_invoice: 'postpaid_invoice',
};

export function toAdminAccount(a: AccountRecord, config: Pick<Config, 'publicUrl'>): AdminAccount {
  return { ...toWireAccount(a, config), features: ACCOUNT_FEATURES.filter((f) => a[FEATURE_COLUMN[f]] === true) };
}

export const COMMANDS = {
  /** Creates an account and its first key (with the billing permission: it is the owner's). */
  'accounts.create': async (ctx: CommandContext, input: unknown): Promise<{ account: AdminAccount; api_key: CreatedKey }> => {
    const account = await createAccount(ctx, input);
    const api_key = await createApiKey(ctx, { account: account.id, billing: true });
    return { account: toAdminAccount(account, ctx.config), api_key };
  },
  'keys.create': (ctx: CommandContext, input: unknown): Promise<CreatedKey> => createApiKey(ctx, input),
  /** Records a run for the files (absolute paths) and queues it when a service is there to work. */
  'ingest.start': async (ctx: CommandContext, input: unknown): Promise<IngestRun> => {
    const req = parseOrThrow(IngestStartInput, input);
    if (req.account !== null) await ApiError.naming('account', requireAccount(ctx, req.account));
    const runId = await createRun(ctx, { accountId: req.account, origin: 'cli', files: describeFiles(req.files) });
    await ctx.ingestJobs?.schedule(runId);
    return getRun(ctx, runId, null);
  },
  'ingest.get': async (ctx: CommandContext, input: unknown): Promise<IngestRun> => getRun(ctx, parseOrThrow(RunInput, input).run, null),
  /** Writes a deterministic event file for the account's ads (creating a small set of them first when asked). */
  'events.generate': async (ctx: CommandContext, input: unknown): Promise<GenerateResult> => {
    const req = parseOrThrow(GenerateInput, input);
    const account = await ApiError.naming('account', requireAccount(ctx, req.account));
    if (req.create_entities) await createGeneratorEntities({ ...ctx, adReviews: ctx.adReviews ?? laterReviews }, account.id);
    const ads = await accountAds(ctx.store, account.id);
    if (ads.length === 0) {
      throw new ApiError('invalid_value', `ad account ${account.id} has no ads to generate events for; pass create_entities (--create-entities) to create some.`, {
        param: 'account',
      });
    }
    const endDate = req.end_date ?? DateTime.fromMillis(ctx.clock.nowMs(), { zone: account.timezone }).toISODate();
    return writeEventFile(ctx.store, {
      accountId: account.id,
      currency: account.currency_code,
      timezone: account.timezone,
      ads,
      events: req.events,
      days: req.days,
      seed: req.seed,
      endDate: endDate ?? '',
      out: req.out,
    });
  },
  'accounts.set-timezone': async (ctx: CommandContext, input: unknown): Promise<AdminAccount> =>
    toAdminAccount(await setAccountTimezone({ ...ctx, dailyLimitExists: (a) => dailyLimitExists(ctx, a) }, input), ctx.config),
} as const;

export type CommandName = keyof typeof COMMANDS;
export type CommandResult<N extends CommandName> = Awaited<ReturnType<(typeof COMMANDS)[N]>>;

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

export async function runCommand<N extends CommandName>(ctx: CommandContext, name: N, input: unknown): Promise<CommandResult<N>> {
  if (!isCommandName(name)) throw new ApiError('route_not_found', `unknown command ${String(name)}`);
  return (await COMMANDS[name](ctx, input)) as CommandResult<N>;
}
