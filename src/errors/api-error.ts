import { ERROR_CODES, type ErrorCode, type ErrorType } from './error-codes.js';

export interface ErrorBody {
  error: { message: string; type: ErrorType; param: string | null; code: string | null };
}

export interface ApiErrorOptions {
  param?: string | null;
  /** Extra response headers, e.g. Retry-After or Allow. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one error class of the API; its status and type follow from the code. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const spec = ERROR_CODES[code];
    this.status = spec.status;
    this.type = spec.type;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }

  static notFound(what: string, id: string, param: string | null = null): ApiError {
    return new ApiError('resource_missing', `No such ${what}: '${id}'`, { param });
  }

  /**
   * For objects named in a request body: a lookup's 404 names the field the
   * id came from (`campaign_id`, `conversion_event_setting_ids[0]`).
   */
  static async naming<T>(param: string, lookup: Promise<T>): Promise<T> {
    try {
      return await lookup;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'resource_missing' && err.param === null) {
        throw new ApiError('resource_missing', err.message, { param, cause: err });
      }
      throw err;
    }
  }
}

/**
 * Turns anything thrown into an ApiError. Unknown errors become a 500 whose
 * message is generic; the original stays as `cause` for the log only.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError('internal_error', 'An internal error occurred. Try again later; if it persists, report the request id.', {
    cause: err,
  });
}
