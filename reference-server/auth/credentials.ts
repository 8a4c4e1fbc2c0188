/**
 * Reading the key from the request headers (written spec §5.2, D-AUTH-*): pure, total functions
 * of the header values, so any input gets a key or an error answer and never a throw.
 */
import { KEY_PREFIX } from '../../spec/facts.ts';
import {
  BASIC_AUTH,
  BEARER_IN_API_KEY,
  CONFLICTING_CREDENTIALS,
  type ErrorAnswer,
  KEY_WITHOUT_BEARER,
  MALFORMED_KEY,
  MISSING_KEY,
  OTHER_AUTH_SCHEME,
} from '../errors.ts';

/** Longer than any key we issue; longer input is refused before it is hashed. */
const MAX_KEY_LENGTH = 256;
const KEY_BODY = /^[A-Za-z0-9_-]{16,}$/;
/** The scheme matched case-insensitively, any run of spaces after it (RFC 9110 §11.1). */
const BEARER = /^bearer +([^ ]+)$/i;

export type CredentialResult = { key: string; error?: undefined } | { key?: undefined; error: ErrorAnswer };

/** Header values as Node gives them in `req.headersDistinct`: absent, or one entry per header line. */
/** D-AUTH-BOTH: refuse two different keys (ours), or read only the header that wins (a variant). */
export type BothHeaders = 'refuse' | 'authorization' | 'x-api-key';

export function credentialsFrom(
  authorization: readonly string[] | undefined,
  apiKey: readonly string[] | undefined,
  both: BothHeaders = 'refuse',
): CredentialResult {
  if (authorization === undefined && apiKey === undefined) return { error: MISSING_KEY };
  const bearer = authorization === undefined ? undefined : bearerToken(authorization);
  const header = apiKey === undefined ? undefined : single(apiKey);
  if (authorization !== undefined && apiKey !== undefined && both === 'refuse') {
    // Both sent: one key twice is fine; anything else is refused rather than silently preferred.
    if (bearer === undefined || bearer !== header) return { error: CONFLICTING_CREDENTIALS };
  }
  const fromAuthorization = authorization !== undefined && (both !== 'x-api-key' || apiKey === undefined);
  const key = fromAuthorization ? bearer : (header ?? bearer);
  if (key !== undefined && isKeyShaped(key)) return { key };
  return { error: fromAuthorization ? authorizationMistake(authorization) : apiKeyMistake(apiKey) };
}

/** What is wrong with an `Authorization` that carries no usable key, when it is a common mistake. */
function authorizationMistake(values: readonly string[]): ErrorAnswer {
  const value = single(values)?.trim();
  if (value === undefined || value === '' || /^bearer(?:\s|$)/i.test(value)) return MALFORMED_KEY;
  if (!/\s/.test(value)) return KEY_WITHOUT_BEARER;
  if (/^basic +/i.test(value)) return BASIC_AUTH;
  return /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]* +[^ ]/.test(value) ? OTHER_AUTH_SCHEME : MALFORMED_KEY;
}

/** What is wrong with an `x-api-key` that carries no usable key, when it is a common mistake. */
function apiKeyMistake(values: readonly string[] | undefined): ErrorAnswer {
  const value = values === undefined ? undefined : single(values);
  return value !== undefined && /^bearer +[^ ]/i.test(value.trim()) ? BEARER_IN_API_KEY : MALFORMED_KEY;
}

/**
 * The two key headers as `req.headersDistinct` has them (one entry per header line, names
 * matched case-insensitively), read from `req.rawHeaders` without building every other header's.
 */
export function keyHeaderLines(rawHeaders: readonly string[]): {
  authorization: string[] | undefined;
  apiKey: string[] | undefined;
} {
  let authorization: string[] | undefined;
  let apiKey: string[] | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === 13 && name.toLowerCase() === 'authorization') {
      (authorization ??= []).push(rawHeaders[i + 1] as string);
    } else if (name.length === 9 && name.toLowerCase() === 'x-api-key') {
      (apiKey ??= []).push(rawHeaders[i + 1] as string);
    }
  }
  return { authorization, apiKey };
}

function isKeyShaped(value: string): boolean {
  return (
    value.length <= MAX_KEY_LENGTH &&
    value.startsWith(KEY_PREFIX) &&
    KEY_BODY.test(value.slice(KEY_PREFIX.length))
  );
}

function bearerToken(values: readonly string[]): string | undefined {
  const value = single(values);
  return value === undefined ? undefined : BEARER.exec(value)?.[1];
}

/** A header sent more than once carries no single key. */
function single(values: readonly string[]): string | undefined {
  return values.length === 1 ? values[0] : undefined;
}
