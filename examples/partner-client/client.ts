/**
 * A typed client for the Campaign Canvassing Read API: openapi-fetch over the types openapi-typescript
 * generates from the contract, so every path, parameter and field below is checked by the compiler.
 *
 * In your own project: `npx openapi-typescript openapi.yaml -o openapi.d.ts` (the contract is served
 * by the sandbox at http://127.0.0.1:8080/openapi.yaml), `npm install openapi-fetch`, and copy this file.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from '../../spec/generated/openapi.d.ts';

export type WalkSummary = components['schemas']['WalkSummary'];
export type WalkDetail = components['schemas']['WalkDetail'];
type ApiErrorBody = components['schemas']['Error'];

/**
 * A failed answer: `code` is the API's stable error code, the thing to branch on (the message is
 * for people). An answer that is not the error envelope gets the code `unexpected_answer`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    /** The API's own sentence, for people. */
    readonly apiMessage: string,
    /** Seconds the API asked to wait (`Retry-After`), when it did. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${status} ${code}: ${apiMessage}`);
    this.name = 'ApiError';
  }
}

export interface WalksClientOptions {
  baseUrl: string;
  apiKey: string;
  /** How often a `rate_limited` answer is retried after its `Retry-After` (default 2). */
  retries?: number;
}

export function createWalksClient(options: WalksClientOptions) {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    // Keys are for servers only: keep them in the environment, never in a browser or a repository.
    headers: { Authorization: `Bearer ${options.apiKey}` },
  });
  const retries = options.retries ?? 2;
  return {
    /** The campaign's active walks, at most `limit` of them. */
    listWalks: (limit?: number) =>
      withRetries(retries, () => client.GET('/api/v1/walks', { params: { query: { limit } } })),
    /** One walk with its stops in ascending `position`. */
    getWalk: (id: string) =>
      withRetries(retries, () => client.GET('/api/v1/walks/{id}', { params: { path: { id } } })),
  };
}

interface Answer<T> {
  data?: { ok: true; data: T };
  error?: unknown;
  response: Response;
}

/** The payload of a success, or an ApiError; `rate_limited` is retried after `Retry-After`. */
async function withRetries<T>(retries: number, send: () => Promise<Answer<T>>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const answer = await send();
    if (answer.data) return answer.data.data;
    const error = apiErrorOf(answer.response, answer.error);
    // An unknown code is read by its status, as the spec asks: 429 is throttling whatever its code.
    const throttled = error.code === 'rate_limited' || error.status === 429;
    if (!throttled || attempt >= retries) throw error;
    await new Promise((resolve) => setTimeout(resolve, 1000 * (error.retryAfterSeconds ?? 1)));
  }
}

function apiErrorOf(response: Response, body: unknown): ApiError {
  const retryAfter = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
  const seconds = Number.isFinite(retryAfter) ? retryAfter : undefined;
  const error = (body as { error?: Partial<ApiErrorBody> } | undefined)?.error;
  if (typeof error?.code === 'string') {
    return new ApiError(response.status, error.code, error.message ?? '', seconds);
  }
  return new ApiError(response.status, 'unexpected_answer', 'the answer is not the error envelope', seconds);
}
