import { ApiError } from '../errors/api-error.js';

/**
 * The status life cycle shared by campaigns, ad groups and ads: active and
 * paused move freely, archived is final (spec, Campaign status).
 */
export const LIFECYCLE_STATUSES = ['active', 'paused', 'archived'] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];

export const TRANSITIONS = { activate: 'active', pause: 'paused', archive: 'archived' } as const;

/**
 * Refuses any change to an archived object. Returns true when the request
 * asks for nothing but archived again, which answers with the object as is.
 */
export function guardArchived(what: string, id: string, status: LifecycleStatus, input: Record<string, unknown>): boolean {
  if (status !== 'archived') return false;
  const keys = Object.keys(input);
  if (keys.every((k) => k === 'status') && (input['status'] === undefined || input['status'] === 'archived')) return true;
  throw new ApiError('resource_archived', `${what} '${id}' is archived; archived objects cannot change.`);
}
