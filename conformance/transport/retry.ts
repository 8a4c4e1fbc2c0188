/**
 * When an attempt is tried again, and after how long. Throttling is the target's pace, never its
 * fault: a 429 or a 503 with `Retry-After`, on any request (the target says it did not handle it),
 * is waited out and asked again, up to `THROTTLED_RETRIES` times whatever `--retries` says
 * (`--retries 0` alone turns it off), each wait the `Retry-After` asked for. A 503 without one and a
 * reset with no answer on GET and HEAD are failures, tried again at most `--retries` times, the wait
 * doubling from a quarter second. A wait longer than `--max-retry-wait` is not waited: the answer
 * stands, as it does when the budget is spent or the wait would outlast the run. A failure of the
 * suite's own side (no socket, no file descriptor) is tried again twice, at once, whatever the
 * method: the request never left. undici's retry interceptor (`interceptors.retry`, `RetryHandler`) does not fit: it tries
 * again inside one dispatch, where no attempt is shown, paced or counted against the budget, and a
 * waiting request keeps its place in flight; it waits a `Retry-After` longer than its `maxTimeout`
 * cut short instead of letting the answer stand; its methods leave out POST even for a 429 yet take
 * PUT and DELETE on any 5xx and on refused connections; and, out of tries, it throws instead of
 * returning the last answer. The client asks here instead, and sends each attempt itself.
 */
import { isThrottled } from '../core/observation.ts';
import type { NetworkFailure, ResponseData, RetryReason } from '../core/exchange.ts';
import type { AttemptFailure } from './failures.ts';

/** What is tried again, and on which methods (a write may have been acted on). */
const RETRY_POLICY: Readonly<Record<Exclude<RetryReason, 'local'>, 'any' | 'idempotent'>> = {
  '429': 'any',
  '503': 'idempotent',
  reset: 'idempotent',
};
/** Times a throttled request is asked again (each after its `Retry-After`), unless `--retries 0`. */
export const THROTTLED_RETRIES = 10;
const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'HEAD']);
const FIRST_BACKOFF_MS = 250;
/** Times a failure of the suite's own side (no socket, no file descriptor) is tried again, at once. */
const MAX_LOCAL_RETRIES = 2;

interface RetryLimits {
  retries: number;
  maxRetryWaitMs: number;
}

interface Retry {
  reason: Exclude<RetryReason, 'local'>;
  waitMs: number;
}

/**
 * Whether and when to try an attempt again (its `tries`: how many attempts came before it), or
 * undefined when it is the last.
 */
function retryOf(
  method: string,
  outcome: ResponseData | NetworkFailure,
  tries: number,
  limits: RetryLimits,
): Retry | undefined {
  const reason = reasonOf(outcome);
  if (reason === undefined || limits.retries === 0) return undefined;
  const throttled = !('kind' in outcome) && isThrottled(outcome);
  // A throttled answer says the request was not handled: asked again whatever its method.
  if (!throttled && RETRY_POLICY[reason] === 'idempotent' && !IDEMPOTENT.has(method)) return undefined;
  if (tries >= (throttled ? Math.max(limits.retries, THROTTLED_RETRIES) : limits.retries)) return undefined;
  const backoff = FIRST_BACKOFF_MS * 2 ** tries;
  const asked = 'kind' in outcome ? undefined : retryAfterMs(outcome.headers);
  const waitMs = asked ?? backoff;
  return waitMs <= limits.maxRetryWaitMs ? { reason, waitMs } : undefined;
}

function reasonOf(outcome: ResponseData | NetworkFailure): Retry['reason'] | undefined {
  if ('kind' in outcome) return outcome.kind === 'reset' ? 'reset' : undefined;
  if (outcome.status === 429) return '429';
  return outcome.status === 503 ? '503' : undefined;
}

/** A `Retry-After` in milliseconds (seconds or an HTTP date), or undefined when there is none. */
function retryAfterMs(headers: Readonly<Record<string, string>>): number | undefined {
  const raw = headers['retry-after']?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) * 1_000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Where the run stands when an attempt ends: its limits, whether the budget is spent, the time left. */
export interface RunStanding {
  limits: RetryLimits;
  budgetSpent: boolean;
  msLeft: number;
}

/**
 * Whether and when to try an attempt again, all told: the suite's own trouble at once (`local`
 * tries so far), else as `retryOf` says, unless the budget is spent or the wait would outlast the
 * run (the answer in hand then stands rather than a "not sent").
 */
export function nextTryOf(
  method: string,
  outcome: ResponseData | AttemptFailure,
  tries: { before: number; local: number },
  run: RunStanding,
): { reason: RetryReason; waitMs: number } | undefined {
  if ('kind' in outcome && outcome.local) {
    return tries.local < MAX_LOCAL_RETRIES ? { reason: 'local', waitMs: 0 } : undefined;
  }
  if (run.budgetSpent) return undefined;
  const retry = retryOf(method, outcome, tries.before, run.limits);
  return retry && retry.waitMs < run.msLeft ? retry : undefined;
}
