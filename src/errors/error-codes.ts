/**
 * The closed list of `error.code` values adsvc emits, each with its HTTP status
 * and `error.type` (COMPAT.md, Transport). A code not in this table cannot be
 * thrown: ApiError only takes keys of ERROR_CODES.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'service_unavailable_error';

interface CodeSpec {
  readonly status: number;
  readonly type: ErrorType;
}

const invalid = (status: number): CodeSpec => ({ status, type: 'invalid_request_error' });

export const ERROR_CODES = {
  // 400: the request itself is malformed.
  invalid_type: invalid(400),
  missing_required_parameter: invalid(400),
  unknown_parameter: invalid(400),
  invalid_value: invalid(400),
  invalid_json: invalid(400),
  empty_body: invalid(400),
  integer_above_max_value: invalid(400),
  integer_below_min_value: invalid(400),
  number_above_max_value: invalid(400),
  number_below_min_value: invalid(400),
  string_above_max_length: invalid(400),
  string_below_min_length: invalid(400),
  array_above_max_length: invalid(400),
  array_below_min_length: invalid(400),
  immutable_parameter: invalid(400),
  resource_archived: invalid(400),
  audience_not_eligible: invalid(400),
  // 404 / 405 / 413 / 415: routing and transport.
  resource_missing: invalid(404),
  route_not_found: invalid(404),
  method_not_allowed: invalid(405),
  request_too_large: invalid(413),
  // 413: a conversion insights result over a row limit (spec: Limits); nothing partial is sent.
  result_too_large: invalid(413),
  unsupported_media_type: invalid(415),
  // 422: well-formed but refused.
  idempotency_key_reused: invalid(422),
  // 422: spend limit rules (spec: Account spending limits).
  invalid_amount: invalid(422),
  start_date_in_past: invalid(422),
  start_date_too_early: invalid(422),
  start_date_not_editable: invalid(422),
  end_date_not_after_start_date: invalid(422),
  end_date_not_in_future: invalid(422),
  spend_limit_overlap: invalid(422),
  too_many_windows: invalid(422),
  window_completed: invalid(422),
  budget_window_amount_below_spend: invalid(422),
  timezone_locked_by_daily_limit: invalid(422),
  // 401 / 403: who is calling and what they may do.
  missing_api_key: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  brand_updates_not_enabled: { status: 403, type: 'permission_error' },
  billing_permission_required: { status: 403, type: 'permission_error' },
  conversion_bidding_not_enabled: { status: 403, type: 'permission_error' },
  postpaid_invoice_required: { status: 403, type: 'permission_error' },
  // 409: the state changed under the request.
  custom_audience_mutation_conflict: { status: 409, type: 'conflict_error' },
  revision_mismatch: { status: 409, type: 'conflict_error' },
  // 429 / 5xx: platform conditions.
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  slow_down: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'server_error' },
  server_is_overloaded: { status: 503, type: 'service_unavailable_error' },
  service_unavailable: { status: 503, type: 'service_unavailable_error' },
} as const satisfies Record<string, CodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
