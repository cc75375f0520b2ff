import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireAccount, submitBrand, toWireAccount } from '../../domain/accounts/accounts.js';
import type { AppDeps } from '../../app.js';
import { route } from '../route.js';

export function adAccountRoutes(app: FastifyInstance, deps: AppDeps): void {
  route(app, {
    method: 'GET',
    url: '/ad_account',
    handler: async ({ auth }) => toWireAccount(await requireAccount(deps, auth.accountId), deps.config),
  });

  route(app, {
    method: 'POST',
    url: '/ad_account/brand',
    // The domain validates the body, after the 403 for accounts without brand updates.
    body: z.unknown(),
    handler: async ({ auth, body }) => toWireAccount(await submitBrand(deps, auth.accountId, body), deps.config),
  });
}
