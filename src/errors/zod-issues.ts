import type { z } from 'zod';
import { ApiError } from './api-error.js';
import { isErrorCode, type ErrorCode } from './error-codes.js';

/** `budget.lifetime_spend_limit_micros`, `fields[2]`: the param as clients write it. */
export function formatParam(path: readonly PropertyKey[]): string | null {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? null : out;
}

const describe = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  // Query-string values are all strings: the value itself says what was wrong with it (`limit=1.5`).
  if (typeof value === 'string') return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return typeof value;
};

function sizeCode(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, bound: number | bigint, above: boolean): ErrorCode {
  switch (issue.origin) {
    case 'string':
      return above ? 'string_above_max_length' : 'string_below_min_length';
    case 'array':
    case 'set':
      return above ? 'array_above_max_length' : 'array_below_min_length';
    case 'number':
    case 'int':
    case 'bigint': {
      const whole = Number.isInteger(Number(bound)) && (issue.input === undefined || Number.isInteger(issue.input));
      if (whole) return above ? 'integer_above_max_value' : 'integer_below_min_value';
      return above ? 'number_above_max_value' : 'number_below_min_value';
    }
    default:
      return 'invalid_value';
  }
}

function issueToError(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): ApiError {
  const path = [...prefix, ...issue.path];
  const param = formatParam(path);
  const where = param ?? 'the request';
  // Whatever the check (type, enum, literal, union), nothing at all was sent.
  if (issue.input === undefined && issue.code !== 'custom' && issue.code !== 'unrecognized_keys') {
    return new ApiError('missing_required_parameter', `Missing required parameter: ${where}.`, { param });
  }
  switch (issue.code) {
    case 'invalid_type':
      return new ApiError('invalid_type', `Invalid type for ${where}: expected ${issue.expected}, got ${describe(issue.input)}.`, {
        param,
      });
    case 'unrecognized_keys': {
      const key = issue.keys[0] ?? '';
      const p = formatParam([...path, key]);
      return new ApiError('unknown_parameter', `Unknown parameter: ${p ?? key}.`, { param: p });
    }
    case 'too_big':
      return new ApiError(sizeCode(issue, issue.maximum, true), `Invalid ${where}: ${issue.message}.`, { param });
    case 'too_small':
      return new ApiError(sizeCode(issue, issue.minimum, false), `Invalid ${where}: ${issue.message}.`, { param });
    case 'custom': {
      const code = issue.params?.['code'];
      return new ApiError(isErrorCode(code) ? code : 'invalid_value', `Invalid ${where}: ${issue.message}`, { param });
    }
    default:
      return new ApiError('invalid_value', `Invalid ${where}: ${issue.message}.`, { param });
  }
}

/**
 * Validates input at an edge (HTTP body, query, params, CLI flags) and throws
 * the 400 ApiError of the first issue.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix: readonly PropertyKey[] = []): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const first = result.error.issues[0];
  if (first === undefined) throw new ApiError('invalid_value', 'Invalid request.');
  throw issueToError(first, prefix);
}
