import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { archiveEventSetting, createEventSetting, getEventSetting, listEventSettings } from '../../domain/event-settings/event-settings.js';
import { listQueryShape, pathId } from '../params.js';
import { route } from '../route.js';

const IdParams = z.object({ id: pathId });
const queryBool = z.enum(['true', 'false']).transform((s) => s === 'true');

export function eventSettingRoutes(app: FastifyInstance, deps: AppDeps): void {
  route(app, {
    method: 'POST',
    url: '/conversions/event_settings',
    body: z.unknown(),
    idempotent: deps,
    handler: ({ auth, body }) => createEventSetting(deps, auth.accountId, body),
  });
  route(app, {
    method: 'GET',
    url: '/conversions/event_settings',
    query: z.object({ ...listQueryShape, archived: queryBool.optional() }).strict(),
    handler: ({ auth, query }) => listEventSettings(deps, auth.accountId, query),
  });
  route(app, {
    method: 'GET',
    url: '/conversions/event_settings/:id',
    params: IdParams,
    handler: ({ auth, params }) => getEventSetting(deps, auth.accountId, params.id),
  });
  route(app, {
    method: 'POST',
    url: '/conversions/event_settings/:id/archive',
    params: IdParams,
    handler: ({ auth, params }) => archiveEventSetting(deps, auth.accountId, params.id),
  });
}
