/**
 * A typed client for the Campaign Canvassing Read API, fit for production: openapi-fetch over the
 * types openapi-typescript generates from the contract (every path, parameter and field below is
 * checked by the compiler), with what a real network needs:
 *
 * - a timeout on every request (headers and body);
 * - retries with exponential back-off and full jitter on 5xx, timeouts, reset connections and cut
 *   answers; on 429 it waits the `Retry-After` seconds instead;
 * - no retry on any other 4xx (the same request gets the same answer);
 * - a retry budget shared by every request of the client, so an outage is not met with a flood;
 * - the key only in the request header: never in an error, a log line or a retry notice.
 *
 * Every endpoint is a GET, so a retry is always safe.
 *
 * In your own project: `npx openapi-typescript <sandbox>/openapi.yaml -o openapi.d.ts`,
 * `npm install openapi-fetch`, and copy this file (change the type import to your openapi.d.ts).
 */
import createClient, { type ClientPathsWithMethod } from 'openapi-fetch';
import type { components, paths } from '../../spec/generated/openapi.d.ts';

export type WalkSummary = components['schemas']['WalkSummary'];
export type WalkDetail = components['schemas']['WalkDetail'];
type ApiErrorBody = components['schemas']['Error'];

/** Every path the contract lets a client read: the live operations of the spec, by their templates. */
export type ReadPath = ClientPathsWithMethod<ReturnType<typeof createClient<paths>>, 'get'>;
/** What a read of `P` answers with: the `data` of its 200 envelope, as the contract types it. */
export type ReadData<P extends ReadPath> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': { data: infer D } } } } };
}
  ? D
  : never;
/** A read's parameters: the path's own (`{ id }`) and its query (`{ limit }`). */
export interface ReadParams {
  path?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
}

/**
 * A failed answer: `code` is the API's stable error code, the thing to branch on (the message is
 * for people). An answer that is not the error envelope gets `unexpected_answer`; no answer at all
 * (timeouts, resets, cut bodies, after every retry) gets status 0 and `no_answer`.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The API's own sentence, or what went wrong on the way. */
  readonly apiMessage: string;
  /** Seconds the API asked to wait (`Retry-After`), when it did. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, code: string, apiMessage: string, retryAfterSeconds?: number) {
    super(`${status} ${code}: ${apiMessage}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.apiMessage = apiMessage;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** What a retry notice says: never a header, so never the key. */
export interface RetryNotice {
  request: string;
  attempt: number;
  /** `429 rate_limited`, `500 internal_error`, `timeout`, `fetch failed`, ... */
  reason: string;
  delayMs: number;
}

export interface WalksClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Per attempt, headers and body together (default 10 s). */
  timeoutMs?: number;
  /** Retries of one request at most (default 6). */
  maxRetries?: number;
  /** Back-off: the first delay's ceiling, and every delay's (defaults 100 ms and 5 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A `Retry-After` longer than this ends the retries instead (default 60 s). */
  maxRetryAfterMs?: number;
  /** Retry tokens: the client starts with `burst`, earns `perRequest` per request (defaults 10 and 1, capped at 50). */
  budget?: { burst: number; perRequest: number; cap: number };
  /** Told before each retry (a place to log: it never carries the key). */
  onRetry?: (notice: RetryNotice) => void;
  /** For tests: the jitter's source and the waiting. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

type Settings = Required<Omit<WalksClientOptions, 'baseUrl' | 'apiKey' | 'onRetry'>> &
  Pick<WalksClientOptions, 'onRetry'>;

export function createWalksClient(options: WalksClientOptions) {
  const settings = settingsOf(options);
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    // Keys are for servers only: keep them in the environment, never in a browser or a repository.
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: (request) => fetch(request, { signal: AbortSignal.timeout(settings.timeoutMs) }),
  });
  const budget = new RetryBudget(settings.budget);
  const send = <T>(name: string, attempt: () => Promise<Answer<T>>) =>
    withRetries(name, attempt, settings, budget);
  return {
    /**
     * A read of any live operation of the contract, by its path template: `read('/api/v1/walks',
     * { query: { limit } })`, `read('/api/v1/walks/{id}', { path: { id } })`. The compiler holds the
     * template to the contract's paths and types the answer's `data`; a newly live operation needs
     * only the types made again (`npm run generate:types`), no method written for it.
     */
    read: <P extends ReadPath>(path: P, params: ReadParams = {}) =>
      send<ReadData<P>>(`GET ${path}`, () =>
        // The params are the contract's own (their names from the template); openapi-fetch's
        // per-path parameter types do not narrow over a generic path.
        (client.GET as (path: P, init: { params: ReadParams }) => Promise<Answer<ReadData<P>>>)(path, {
          params,
        }),
      ),
  };
}

function settingsOf(options: WalksClientOptions): Settings {
  return {
    timeoutMs: options.timeoutMs ?? 10_000,
    maxRetries: options.maxRetries ?? 6,
    baseDelayMs: options.baseDelayMs ?? 100,
    maxDelayMs: options.maxDelayMs ?? 5_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    budget: options.budget ?? { burst: 10, perRequest: 1, cap: 50 },
    onRetry: options.onRetry,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  };
}

/**
 * Retry tokens shared by every request of one client: each request earns some, each retry spends
 * one. While the API answers, retries are plentiful; in an outage they run out and requests fail
 * fast instead of multiplying the load.
 */
class RetryBudget {
  private tokens: number;
  private readonly config: { burst: number; perRequest: number; cap: number };
  constructor(config: { burst: number; perRequest: number; cap: number }) {
    this.config = config;
    this.tokens = config.burst;
  }
  earn(): void {
    this.tokens = Math.min(this.config.cap, this.tokens + this.config.perRequest);
  }
  spend(): boolean {
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

interface Answer<T> {
  data?: { ok: true; data: T };
  error?: unknown;
  response: Response;
}

/** What to do after one attempt: done, fail, or wait and try again. */
type Verdict<T> = { done: T } | { fail: ApiError } | { retry: ApiError; delayMs: number; reason: string };

async function withRetries<T>(
  name: string,
  send: () => Promise<Answer<T>>,
  settings: Settings,
  budget: RetryBudget,
): Promise<T> {
  budget.earn();
  for (let attempt = 0; ; attempt++) {
    const verdict = judge(await attemptOnce(send), attempt, settings);
    if ('done' in verdict) return verdict.done;
    if ('fail' in verdict) throw verdict.fail;
    if (attempt >= settings.maxRetries || !budget.spend()) throw verdict.retry;
    settings.onRetry?.({
      request: name,
      attempt: attempt + 1,
      reason: verdict.reason,
      delayMs: verdict.delayMs,
    });
    await settings.sleep(verdict.delayMs);
  }
}

/** One attempt: the answer, or why there was none (a timeout, a reset, a cut or unreadable body). */
async function attemptOnce<T>(send: () => Promise<Answer<T>>): Promise<Answer<T> | { lost: string }> {
  try {
    return await send();
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    return { lost: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : describeLoss(error) };
  }
}

/** A short reason without any request detail (undici's messages never hold headers, but be sure). */
function describeLoss(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause?.code;
  if (typeof cause === 'string') return cause;
  return error instanceof SyntaxError ? 'cut answer' : 'connection lost';
}

function judge<T>(answer: Answer<T> | { lost: string }, attempt: number, settings: Settings): Verdict<T> {
  if ('lost' in answer) {
    return {
      retry: new ApiError(0, 'no_answer', answer.lost),
      delayMs: backoff(attempt, settings),
      reason: answer.lost,
    };
  }
  if (answer.data) return { done: answer.data.data };
  const error = apiErrorOf(answer.response, answer.error);
  const reason = `${error.status} ${error.code}`;
  // An unknown code is read by its status, as the spec asks: 429 is throttling whatever its code.
  if (error.status === 429) {
    const waitMs =
      error.retryAfterSeconds === undefined ? backoff(attempt, settings) : error.retryAfterSeconds * 1000;
    return waitMs > settings.maxRetryAfterMs ? { fail: error } : { retry: error, delayMs: waitMs, reason };
  }
  if (error.status >= 500) return { retry: error, delayMs: backoff(attempt, settings), reason };
  return { fail: error };
}

/** Full jitter: a uniform wait between 0 and min(max, base × 2^attempt). */
export function backoff(
  attempt: number,
  settings: Pick<Settings, 'baseDelayMs' | 'maxDelayMs' | 'random'>,
): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** attempt);
  return Math.round(settings.random() * ceiling);
}

function apiErrorOf(response: Response, body: unknown): ApiError {
  const retryAfter = /^\s*(\d+)\s*$/.exec(response.headers.get('retry-after') ?? '')?.[1];
  const seconds = retryAfter === undefined ? undefined : Number(retryAfter);
  const error = (body as { error?: Partial<ApiErrorBody> } | undefined)?.error;
  if (typeof error?.code === 'string') {
    return new ApiError(response.status, error.code, error.message ?? '', seconds);
  }
  return new ApiError(response.status, 'unexpected_answer', 'the answer is not the error envelope', seconds);
}
