import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { STOP_STATUSES } from '../../fixtures/index.ts';
import { loadSpec, stopStatusesOf } from '../../spec/contract.ts';
import {
  BASIC_AUTH,
  BEARER_IN_API_KEY,
  KEY_WITHOUT_BEARER,
  OTHER_AUTH_SCHEME,
  SERVICE_UNAVAILABLE,
  CONFLICTING_CREDENTIALS,
  type ErrorAnswer,
  INTERNAL_ERROR,
  INVALID_KEY,
  INVALID_LIMIT,
  MISSING_KEY,
  missingScope,
  RATE_LIMITED,
  WALK_NOT_FOUND,
} from '../errors.ts';

const spec = loadSpec();

function example(name: string): { code: string; message: string } {
  const value = (spec.components?.examples?.[name] as OpenAPIV3_1.ExampleObject | undefined)?.value as
    { error: { code: string; message: string } } | undefined;
  if (!value) throw new Error(`spec has no example ${name}`);
  return value.error;
}

describe('error answers are the examples of spec/openapi.yaml', () => {
  const cases: [string, ErrorAnswer][] = [
    ['MissingKey', MISSING_KEY],
    ['InvalidKey', INVALID_KEY],
    ['ConflictingCredentials', CONFLICTING_CREDENTIALS],
    ['Forbidden', missingScope('walks:read')],
    ['NotFound', WALK_NOT_FOUND],
    ['LimitOutOfRange', INVALID_LIMIT],
    ['LimitNotInteger', INVALID_LIMIT],
    ['RateLimited', RATE_LIMITED],
    ['InternalError', INTERNAL_ERROR],
    ['ServiceUnavailable', SERVICE_UNAVAILABLE],
    ['KeyWithoutBearer', KEY_WITHOUT_BEARER],
    ['OtherScheme', OTHER_AUTH_SCHEME],
    ['BasicAuth', BASIC_AUTH],
    ['BearerInApiKey', BEARER_IN_API_KEY],
  ];
  it.each(cases)('%s', (name, answer) => {
    expect({ code: answer.code, message: answer.message }).toEqual(example(name));
    expect(JSON.parse(answer.body.toString('utf8'))).toEqual({ ok: false, error: example(name) });
  });

  it('the statuses the fixtures use are the spec’s, in its order', () => {
    expect(STOP_STATUSES).toEqual(stopStatusesOf(spec));
  });
});
