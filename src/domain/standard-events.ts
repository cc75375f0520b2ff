/** Standard conversion event names (EVENTS.md); any other name is a custom event. */
export const STANDARD_EVENTS = [
  'order_created',
  'checkout_started',
  'items_added',
  'contents_viewed',
  'page_viewed',
  'lead_created',
  'registration_completed',
  'subscription_created',
  'trial_started',
  'appointment_scheduled',
  'app_installed',
  'app_opened',
] as const;
export type StandardEvent = (typeof STANDARD_EVENTS)[number];

export const isStandardEvent = (name: string): name is StandardEvent => (STANDARD_EVENTS as readonly string[]).includes(name);

/** Click windows 7, 14 or 30 days; view windows 0 or 1 day (spec, Limits). */
export const CLICK_WINDOWS = [7, 14, 30] as const;
export const VIEW_WINDOWS = [0, 1] as const;
