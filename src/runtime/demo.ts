import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { runCommand, type CommandContext } from '../admin/commands.js';
import { createApiKey, type CreatedKey } from '../domain/api-keys.js';
import { accountRepository } from '../store/repositories/account-repository.js';

const DemoFile = z.object({ account_id: z.string() });

/** Size of the demo's traffic: 30 local days ending yesterday. */
export const DEMO_DAYS = 30;
export const DEMO_EVENTS = 300_000;

/**
 * `serve --demo`: a demo account (every feature on) made once per data dir
 * and remembered in demo.json; each start prints a fresh key for it. A new
 * demo account gets campaigns, ad groups and ads, and 30 days of generated
 * events queued for loading (`ingestRun`), so insights have data at once.
 */
export async function ensureDemoAccount(
  ctx: CommandContext,
  dataDir: string,
): Promise<{ accountId: string; key: CreatedKey; created: boolean; ingestRun?: string }> {
  const file = join(dataDir, 'demo.json');
  if (existsSync(file)) {
    const saved = DemoFile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (saved.success && (await accountRepository.get(ctx.store, saved.data.account_id))) {
      const key = await createApiKey(ctx, { account: saved.data.account_id, billing: true });
      return { accountId: saved.data.account_id, key, created: false };
    }
  }
  const made = await runCommand(ctx, 'accounts.create', {
    name: 'adsvc demo',
    url: 'https://demo.adsvc.example',
    timezone: 'America/New_York',
    currency: 'USD',
    enable: ['brand', 'conversion_bidding', 'product_segments', 'zero_impression_products', 'postpaid_invoice'],
  });
  const events = join(dataDir, 'demo-events.parquet');
  await runCommand(ctx, 'events.generate', { account: made.account.id, days: DEMO_DAYS, events: DEMO_EVENTS, seed: 1, out: events, create_entities: true });
  const run = await runCommand(ctx, 'ingest.start', { files: [events], account: made.account.id });
  writeFileSync(file, JSON.stringify({ account_id: made.account.id }) + '\n');
  return { accountId: made.account.id, key: made.api_key, created: true, ingestRun: run.id };
}
