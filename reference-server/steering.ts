/**
 * Steering: `Prefer: code=NNN` on an `/api/v1` request with a key the sandbox accepts answers that
 * error status instead of the data, the way Prism's mock does, so a partner's test can meet a
 * 401, 403, 404, 429, 500 or 503 exactly when it wants one. The answer is the one the sandbox
 * gives for that status, in the envelope, with `Preference-Applied: code=NNN` (RFC 7240 §3). Any
 * other code (`code=200`, `code=999`), and any request without an accepted key, is answered as if
 * the preference were not there: the sandbox's own extension, not part of the API.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { WALKS_READ_SCOPE } from '../spec/facts.ts';
import {
  ApiError,
  type ErrorAnswer,
  errorAnswer,
  INTERNAL_ERROR,
  INVALID_KEY,
  missingScope,
  rateLimited,
  SERVICE_UNAVAILABLE,
} from './errors.ts';

/** What a steered 429 or 503 tells the client to wait: a test should not wait long. */
const RETRY_AFTER_S = 1;

/** The statuses a partner can ask for, and the answer each one is (403 names the endpoint's scope). */
const STEERED: Readonly<Record<number, ErrorAnswer>> = {
  401: INVALID_KEY,
  429: rateLimited(RETRY_AFTER_S),
  500: INTERNAL_ERROR,
  503: { ...SERVICE_UNAVAILABLE, headers: { 'Retry-After': String(RETRY_AFTER_S) } },
};
const STEERABLE_STATUSES = [401, 403, 404, 429, 500, 503] as const;

/** The `code=` of a `Prefer` header (RFC 7240: comma-separated preferences, `;` parameters). */
export function preferredCode(prefer: string | string[] | undefined): number | undefined {
  const values = Array.isArray(prefer) ? prefer : prefer === undefined ? [] : [prefer];
  for (const preference of values.flatMap((value) => value.split(','))) {
    const [name, value] = (preference.split(';')[0] ?? '').split('=').map((part) => part.trim());
    if (name?.toLowerCase() === 'code' && value !== undefined) {
      const code = value.replace(/^"(.*)"$/, '$1');
      return /^\d{3}$/.test(code) ? Number(code) : undefined;
    }
  }
  return undefined;
}

/**
 * The steered answers of one endpoint, built once; `notFound` is that endpoint's own 404, `scope`
 * the scope its 403 names. Placed after authentication, so only a request the sandbox would serve
 * can be steered.
 */
export function steering(notFound: ErrorAnswer, scope: string = WALKS_READ_SCOPE): RequestHandler {
  const answers = new Map<number, ErrorAnswer>();
  for (const status of STEERABLE_STATUSES) {
    const answer =
      status === 404 ? notFound : status === 403 ? missingScope(scope) : (STEERED[status] as ErrorAnswer);
    answers.set(
      status,
      errorAnswer(answer.status, answer.code, answer.message, {
        ...answer.headers,
        'Preference-Applied': `code=${status}`,
      }),
    );
  }
  return (req: IncomingMessage, _res, next) => {
    const code = preferredCode(req.headers.prefer);
    const answer = code === undefined ? undefined : answers.get(code);
    next(answer ? new ApiError(answer) : undefined);
  };
}
