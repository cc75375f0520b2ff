import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, toApiError } from '../../src/errors/api-error.js';
import { ERROR_CODES } from '../../src/errors/error-codes.js';
import { formatParam, parseOrThrow } from '../../src/errors/zod-issues.js';

const schema = z
  .object({
    name: z.string().min(3).max(10),
    limit: z.number().int().min(1).max(500).optional(),
    ratio: z.number().min(0.5).max(2.5).optional(),
    budget: z.object({ lifetime_spend_limit_micros: z.number().int().min(1_000_000) }).strict().optional(),
    tags: z.array(z.string()).max(2).optional(),
    kind: z.enum(['a', 'b']).optional(),
  })
  .strict();

function errorOf(input: unknown): ApiError {
  try {
    parseOrThrow(schema, input);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a validation error');
}

describe('zod issues become API errors', () => {
  it.each([
    [{}, 'missing_required_parameter', 'name'],
    [{ name: 5 }, 'invalid_type', 'name'],
    [{ name: null }, 'invalid_type', 'name'],
    [{ name: 'ab' }, 'string_below_min_length', 'name'],
    [{ name: 'abcdefghijk' }, 'string_above_max_length', 'name'],
    [{ name: 'abc', limit: 5000 }, 'integer_above_max_value', 'limit'],
    [{ name: 'abc', limit: 0 }, 'integer_below_min_value', 'limit'],
    [{ name: 'abc', limit: 1.5 }, 'invalid_type', 'limit'],
    [{ name: 'abc', ratio: 3 }, 'number_above_max_value', 'ratio'],
    [{ name: 'abc', budget: { lifetime_spend_limit_micros: 5 } }, 'integer_below_min_value', 'budget.lifetime_spend_limit_micros'],
    [{ name: 'abc', budget: {} }, 'missing_required_parameter', 'budget.lifetime_spend_limit_micros'],
    [{ name: 'abc', budget: { lifetime_spend_limit_micros: 2_000_000, x: 1 } }, 'unknown_parameter', 'budget.x'],
    [{ name: 'abc', tags: ['a', 5] }, 'invalid_type', 'tags[1]'],
    [{ name: 'abc', tags: ['a', 'b', 'c'] }, 'array_above_max_length', 'tags'],
    [{ name: 'abc', kind: 'c' }, 'invalid_value', 'kind'],
    [{ name: 'abc', colour: 'red' }, 'unknown_parameter', 'colour'],
  ])('%o -> %s at %s', (input, code, param) => {
    const err = errorOf(input);
    expect(err.code).toBe(code);
    expect(err.param).toBe(param);
    expect(err.status).toBe(400);
    expect(err.type).toBe('invalid_request_error');
    expect(err.message).toContain(param);
  });

  it('a non-object body is the wrong type for the whole request', () => {
    const err = errorOf([1, 2]);
    expect(err.code).toBe('invalid_type');
    expect(err.param).toBeNull();
  });

  it('formats paths the way clients write them', () => {
    expect(formatParam(['a', 0, 'b'])).toBe('a[0].b');
    expect(formatParam([])).toBeNull();
  });
});

describe('the error code table', () => {
  it('maps every status to the type COMPAT.md pairs with it', () => {
    const expected: Record<number, string> = {
      400: 'invalid_request_error',
      404: 'invalid_request_error',
      405: 'invalid_request_error',
      413: 'invalid_request_error',
      415: 'invalid_request_error',
      422: 'invalid_request_error',
      401: 'authentication_error',
      403: 'permission_error',
      409: 'conflict_error',
      429: 'rate_limit_error',
      500: 'server_error',
      503: 'service_unavailable_error',
    };
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(expected[spec.status], `${code} has status ${spec.status}`).toBe(spec.type);
    }
  });

  it('renders the envelope', () => {
    expect(new ApiError('invalid_type', 'bad', { param: 'limit' }).toBody()).toEqual({
      error: { message: 'bad', type: 'invalid_request_error', param: 'limit', code: 'invalid_type' },
    });
  });

  it('hides unknown errors behind a generic 500 but keeps the cause', () => {
    const cause = new Error('connection string with a password');
    const api = toApiError(cause);
    expect(api.status).toBe(500);
    expect(api.code).toBe('internal_error');
    expect(api.type).toBe('server_error');
    expect(api.message).not.toContain('password');
    expect(api.cause).toBe(cause);
  });
});

describe('missing values of any kind', () => {
  it.each([
    [z.object({ status: z.enum(['a', 'b']) }), 'status'],
    [z.object({ mode: z.literal('x') }), 'mode'],
    [z.object({ days: z.union([z.literal(7), z.literal(14)]) }), 'days'],
  ])('are missing_required_parameter (%#)', (s, param) => {
    try {
      parseOrThrow(s, {});
      throw new Error('no error');
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('missing_required_parameter');
      expect((err as ApiError).param).toBe(param);
    }
  });
});
