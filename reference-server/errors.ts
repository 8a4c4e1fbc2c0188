/**
 * Every error answer the server gives, as data: status, stable code, message, extra headers and the
 * envelope bytes, built once at start-up. Messages are the examples of `spec/openapi.yaml` (a test
 * holds them to it) and the decisions of `spec/DECISIONS.md`.
 */
import { STATUS_CODES } from 'node:http';
import { LIMIT, statusOfError } from '../spec/facts.ts';

export interface ErrorAnswer {
  status: number;
  code: string;
  message: string;
  headers: Readonly<Record<string, string>>;
  /** `{"ok":false,"error":{"code":…,"message":…}}`, encoded once. */
  body: Buffer;
}

export function errorAnswer(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): ErrorAnswer {
  const body = Buffer.from(JSON.stringify({ ok: false, error: { code, message } }), 'utf8');
  return Object.freeze({ status, code, message, headers: Object.freeze(headers), body });
}

/** An answer whose code the spec names, with the status the spec gives that code. */
function specError(code: string, message: string, headers: Record<string, string> = {}): ErrorAnswer {
  return errorAnswer(statusOfError(code), code, message, headers);
}

/** Thrown or passed to `next()`; the error handler sends its answer. */
export class ApiError extends Error {
  readonly answer: ErrorAnswer;

  constructor(answer: ErrorAnswer) {
    super(answer.message);
    this.name = 'ApiError';
    this.answer = answer;
  }
}

const BEARER_CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="canvassing"' };

/** D-AUTH-MISSING */
export const MISSING_KEY = specError(
  'unauthorized',
  'An API key is required: send Authorization: Bearer <API_KEY> or x-api-key: <API_KEY>.',
  BEARER_CHALLENGE,
);
/** D-AUTH-UNKNOWN; D-AUTH-MALFORMED and D-AUTH-REVOKED give the same answer (a variant may not). */
export const INVALID_KEY = specError('unauthorized', 'The API key is not valid.', BEARER_CHALLENGE);
export const MALFORMED_KEY = specError('unauthorized', INVALID_KEY.message, BEARER_CHALLENGE);
export const REVOKED_KEY = specError('unauthorized', INVALID_KEY.message, BEARER_CHALLENGE);
/**
 * D-AUTH-MALFORMED, the forms a key is most often sent in by mistake: the same status and code as
 * any unusable key, and a message (the spec's examples) saying what is wrong and how to send it.
 * None repeats what the request carried.
 */
export const KEY_WITHOUT_BEARER = specError(
  'unauthorized',
  'The Authorization header needs the Bearer scheme before the key: send Authorization: Bearer <API_KEY>, or x-api-key: <API_KEY>.',
  BEARER_CHALLENGE,
);
export const OTHER_AUTH_SCHEME = specError(
  'unauthorized',
  'The Authorization header must use the Bearer scheme (Token and other schemes are not accepted): send Authorization: Bearer <API_KEY>, or x-api-key: <API_KEY>.',
  BEARER_CHALLENGE,
);
export const BASIC_AUTH = specError(
  'unauthorized',
  'Basic authentication is not accepted: send the API key as Authorization: Bearer <API_KEY>, or x-api-key: <API_KEY>.',
  BEARER_CHALLENGE,
);
export const BEARER_IN_API_KEY = specError(
  'unauthorized',
  'The x-api-key header takes the key alone, without Bearer: send x-api-key: <API_KEY>, or Authorization: Bearer <API_KEY>.',
  BEARER_CHALLENGE,
);
/** Every malformed-key answer: a variant that answers malformed keys otherwise changes them all. */
export const MALFORMED_KEY_ANSWERS: readonly ErrorAnswer[] = [
  MALFORMED_KEY,
  KEY_WITHOUT_BEARER,
  OTHER_AUTH_SCHEME,
  BASIC_AUTH,
  BEARER_IN_API_KEY,
];
/** D-AUTH-BOTH */
export const CONFLICTING_CREDENTIALS = specError(
  'conflicting_credentials',
  'Authorization and x-api-key carry different keys; send one key.',
);
/** Written spec §5.6. */
export function missingScope(scope: string): ErrorAnswer {
  return specError('forbidden', `This key lacks the ${scope} scope.`);
}
/** Written spec §4.3 rule 1; D-ID-MALFORMED and D-WALK-INACTIVE give the very same answer. */
export const WALK_NOT_FOUND = specError('not_found', 'Walk not found.');
/** D-ID-MALFORMED: a walk id that is not a UUID (the answer of `WALK_NOT_FOUND` unless a variant differs). */
export const MALFORMED_WALK_ID = specError('not_found', WALK_NOT_FOUND.message);
/** D-LIMIT */
export const INVALID_LIMIT = specError(
  'invalid_parameter',
  `limit must be an integer from ${LIMIT.minimum} to ${LIMIT.maximum}.`,
);
/** Written spec §4.3 rule 1 for any item the spec serves: unknown, malformed and foreign ids alike. */
export const ITEM_NOT_FOUND = specError('not_found', 'Not found.');
const invalidLimits = new Map<string, ErrorAnswer>();
/** D-LIMIT for an operation whose bounds are not the walks' (`INVALID_LIMIT` is theirs), built once per bounds. */
export function invalidLimit(minimum: number, maximum: number): ErrorAnswer {
  if (minimum === LIMIT.minimum && maximum === LIMIT.maximum) return INVALID_LIMIT;
  const key = `${minimum}..${maximum}`;
  let answer = invalidLimits.get(key);
  if (!answer) {
    answer = specError('invalid_parameter', `limit must be an integer from ${minimum} to ${maximum}.`);
    invalidLimits.set(key, answer);
  }
  return answer;
}
/** D-PAGINATION-DECLARED: a cursor this server did not issue for this key's campaign and this list. */
export function invalidCursor(name: string): ErrorAnswer {
  return specError(
    'invalid_parameter',
    `${name} is not a cursor this API issued for this list; send the one the previous page gave.`,
  );
}
/** D-PATH-UNKNOWN */
export const NO_SUCH_ENDPOINT = specError('not_found', 'No such endpoint.');
/** D-PLANNED */
export const PLANNED_ENDPOINT = specError('not_found', 'This endpoint is planned and not active yet.');
/** D-METHOD */
export const METHOD_NOT_ALLOWED = specError(
  'method_not_allowed',
  'This endpoint only answers GET and HEAD; the API is read-only.',
  { Allow: 'GET, HEAD' },
);
/** D-ERRORS: never a stack trace or an internal detail. */
export const INTERNAL_ERROR = specError(
  'internal_error',
  'Something went wrong on our side; please retry later.',
);
/** D-RATE: the answer without its `Retry-After`; `rateLimited(seconds)` is what is sent. */
export const RATE_LIMITED = specError(
  'rate_limited',
  'Too many requests for this key; retry after the number of seconds in Retry-After.',
);
const rateLimitedAnswers = new Map<number, ErrorAnswer>();

/** D-RATE: the 429 telling the client to wait `seconds` (a whole number from 1), built once per value. */
export function rateLimited(seconds: number): ErrorAnswer {
  let answer = rateLimitedAnswers.get(seconds);
  if (!answer) {
    answer = errorAnswer(RATE_LIMITED.status, RATE_LIMITED.code, RATE_LIMITED.message, {
      'Retry-After': String(seconds),
    });
    rateLimitedAnswers.set(seconds, answer);
  }
  return answer;
}
/** A request body over the cap of `request-body.ts`; the rest of it is not read, so the connection closes. */
export const BODY_TOO_LARGE = specError('payload_too_large', 'Payload Too Large.', { Connection: 'close' });
/** RFC 9112 §3.2: HTTP/1.1 without `Host`. */
export const MISSING_HOST = specError('bad_request', 'HTTP/1.1 requests must carry a Host header.', {
  Connection: 'close',
});
/** What Node cannot parse as HTTP, answered on the socket before Express sees it (`start.ts`). */
export const UNPARSEABLE_REQUEST = specError('bad_request', 'The request could not be parsed as HTTP.');
export const HEADERS_TOO_LARGE = specError('headers_too_large', 'The request headers are too large.');
export const REQUEST_TIMEOUT = specError('request_timeout', 'The request took too long to arrive.');
export const DOCS_NOT_BUILT = errorAnswer(
  503,
  'docs_not_built',
  'The API reference page has not been built; run npm run docs:build.',
);
export const PARTNER_FILE_NOT_BUILT = errorAnswer(
  503,
  'docs_not_built',
  'This file is made when the reference page is built; run npm run docs:build.',
);

/**
 * D-UNAVAILABLE: the service is down for a while (maintenance, overload); the reference server
 * never fails so by itself, the sandbox answers it when asked (`steering.ts`).
 */
export const SERVICE_UNAVAILABLE = specError(
  'service_unavailable',
  'The service is temporarily unavailable; retry after the number of seconds in Retry-After.',
);
/** The sandbox clock (`--clock`): a body that is not a JSON object with `advance`. */
export const CLOCK_BODY_NOT_JSON = specError(
  'bad_request',
  'Send a JSON object such as {"advance":"2h"} to move the sandbox clock.',
);
/** The sandbox clock: `advance` that is not a positive duration of whole units. */
export const INVALID_ADVANCE = specError(
  'invalid_parameter',
  'advance must be a duration above 0 of at most 30 days, such as "2h", "30m", "90s", "1d" or "1h30m".',
);
/** The sandbox clock's path answers reads and moves, nothing else. */
export const CLOCK_METHOD_NOT_ALLOWED = specError(
  'method_not_allowed',
  'The sandbox clock answers GET and HEAD (the time) and POST (move it).',
  { Allow: 'GET, HEAD, POST' },
);

/**
 * Codes for client errors that come from Express or Node rather than from our routes: the spec's
 * code for a status where it names one, our own words for the statuses it does not mention.
 */
const CLIENT_ERROR_CODES: Record<number, string> = {
  ...Object.fromEntries(
    ['bad_request', 'payload_too_large', 'headers_too_large'].map((code) => [statusOfError(code), code]),
  ),
  414: 'uri_too_long',
  415: 'unsupported_media_type',
};
const genericAnswers = new Map<number, ErrorAnswer>();

/** The answer for an error we did not raise ourselves: its 4xx status if it has one, else 500. */
export function answerForUnexpected(error: unknown): ErrorAnswer {
  const status = statusOf(error);
  if (status === undefined) return INTERNAL_ERROR;
  let answer = genericAnswers.get(status);
  if (!answer) {
    const code = CLIENT_ERROR_CODES[status] ?? 'bad_request';
    answer = errorAnswer(status, code, `${STATUS_CODES[status] ?? 'Bad Request'}.`);
    genericAnswers.set(status, answer);
  }
  return answer;
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const value = typeof status === 'number' ? status : statusCode;
  return typeof value === 'number' && Number.isInteger(value) && value >= 400 && value < 500
    ? value
    : undefined;
}
