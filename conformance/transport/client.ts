/**
 * The suite's only way to the target, composed of stages, each a module of its own:
 * - memoizing: identical GETs and HEADs share one fetch (`memo.ts`);
 * - the request prepared (`prepared.ts`): its headers and keys, shown by name (`request-headers.ts`),
 *   a path sent as written where URL parsing would change it (`as-written.ts`), its curl line
 *   (`curl.ts`);
 * - the concurrency bound (`gate.ts`) and the pace of starts, `--rate-limit` and what 429s teach
 *   (`pace.ts`);
 * - the request budget, the run's end (`deadline.ts`) and a target gone (`liveness.ts`), which
 *   leave a request not sent;
 * - one attempt (`attempt.ts`): undici's dispatcher (`dispatcher.ts`, with undici's own size cap)
 *   and our arrival interceptor (`arrival.ts`), bounded by `--timeout`, decoded (`decoding.ts`),
 *   its failure classified (`failures.ts`);
 * - what is tried again, and when (`retry.ts`): a throttled answer (a 429, a 503 with
 *   `Retry-After`) is waited out and asked again; each attempt is an exchange of its own, counts
 *   against the budget and is paced, and a request waiting for its retry gives up its place in
 *   flight to others; the request ends with its last attempt.
 * The stages above one attempt (memo, gate, pace, budget, retry) are the client's, not undici
 * interceptors: an interceptor sees one dispatch, and the suite records, paces and counts every
 * attempt as an exchange of its own. Redirects are never followed (a key never travels to another
 * origin). Network trouble never throws: it comes back as an `Exchange` with an `error` a check
 * turns into a clear failure.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { KEY_PREFIX } from '../../spec/facts.ts';
import { isFinal } from '../core/exchange.ts';
import { isThrottled } from '../core/observation.ts';
import type { Exchange, NetworkFailure, RequestInfo, RequestSpec, RetryReason } from '../core/exchange.ts';
import type { PaceSummary, Report } from '../core/report-model.ts';
import type { ProxySetting, SuiteConfig } from '../core/configuration.ts';
import { baseOf, lineOf } from './as-written.ts';
import { type AttemptOutcome, type AttemptRequest, attempted, type Way } from './attempt.ts';
import { curlReachArgs } from './curl.ts';
import { RunEnd } from './deadline.ts';
import { routeOf, targetTlsOf } from './dispatcher.ts';
import { Gate } from './gate.ts';
import { type KnownRequest, TargetWatch } from './liveness.ts';
import { Memo } from './memo.ts';
import { Pace } from './pace.ts';
import { type Preparing, preparedOf, urlOf } from './prepared.ts';
import { credentialsOf } from './request-headers.ts';
import { nextTryOf, type RunStanding } from './retry.ts';

type ClientOptions = Pick<
  SuiteConfig,
  | 'baseUrl'
  | 'keys'
  | 'concurrency'
  | 'timeoutMs'
  | 'maxRequests'
  | 'maxResponseBytes'
  | 'maxRetryWaitMs'
  | 'retries'
  | 'rateLimit'
  | 'reach'
  | 'maxDurationMs'
> & { embedded?: boolean };

/** Told of every attempt once it is settled (answered, failed, or not sent). */
export type ExchangeListener = (exchange: Exchange) => void;

export class HttpClient {
  /** Every exchange of the run, in the order they were sent (memoized fetches appear once). */
  readonly exchanges: Exchange[] = [];
  sent = 0;
  /** The proxy every request goes through (`dispatcher.ts`); undefined for a direct connection. */
  readonly proxy: ProxySetting | undefined;
  /** Attempts tried again, by why. */
  readonly retried: Partial<Record<RetryReason, number>> = {};
  /** Random per run; reports show it as a shell expression that makes another one. Public for the echo check. */
  readonly madeUpKey = `${KEY_PREFIX}${randomBytes(24).toString('hex')}`;
  private readonly options: ClientOptions;
  /** The way every attempt goes, and what bounds it (`attempt.ts`). */
  private readonly way: Way;
  /** What every request shares as it is prepared (`prepared.ts`). */
  private readonly preparing: Preparing;
  private readonly memo = new Memo();
  private readonly gate: Gate;
  /** Request starts per window, and the pauses 429s ask for. */
  private readonly pace: Pace;
  /** Whether the target is gone (`liveness.ts`). */
  private readonly watch = new TargetWatch();
  private readonly listeners: ExchangeListener[] = [];
  private seq = 0;

  constructor(options: ClientOptions) {
    this.options = options;
    const route = routeOf(options);
    this.proxy = route.proxy;
    this.way = {
      dispatcher: route.dispatcher,
      proxy: route.proxy,
      socketTls: targetTlsOf(options),
      timeoutMs: options.timeoutMs,
      maxResponseBytes: options.maxResponseBytes,
      runEnd: new RunEnd(options.maxDurationMs),
    };
    this.preparing = {
      config: options,
      base: baseOf(options.baseUrl),
      madeUpKey: this.madeUpKey,
      curlArgs: curlReachArgs(options.reach, route.proxy),
    };
    this.gate = new Gate(options.concurrency);
    this.pace = new Pace(options.rateLimit);
  }

  /** Sends a request (or reuses the answer of an identical GET). Never throws for network trouble. */
  send(spec: RequestSpec): Promise<Exchange> {
    const method = (spec.method ?? 'GET').toUpperCase();
    return this.memo.of(spec, method, () => this.sendNow(spec, method));
  }

  /** Requests answered from the memo (`memo.ts`). */
  get memoized(): number {
    return this.memo.memoized;
  }

  urlOf(spec: Pick<RequestSpec, 'path' | 'query'>): string {
    return urlOf(this.options.baseUrl, spec);
  }

  async close(): Promise<void> {
    await this.way.dispatcher.destroy();
  }

  /** Tells `listener` of every attempt as it settles (progress lines, `--log-requests`). */
  onSettled(listener: ExchangeListener): void {
    this.listeners.push(listener);
  }

  /** The report's count of requests: every attempt sent, the retries by reason, the pace kept. */
  requestsOf(budget: number): Report['requests'] {
    return {
      sent: this.sent,
      budget,
      memoized: this.memoized,
      retried: { ...this.retried },
      rateLimit: this.paceSummary(),
    };
  }

  /** The pace kept, and the one to set when answers were still throttled after their retries. */
  private paceSummary(): PaceSummary {
    const summary = this.pace.summary();
    const throttled = this.exchanges.some((e) => isFinal(e) && e.response && isThrottled(e.response));
    if (throttled) summary.suggested = this.pace.suggested();
    return summary;
  }

  private async sendNow(spec: RequestSpec, method: string): Promise<Exchange> {
    const { info, attempt } = preparedOf(spec, method, this.preparing);
    let exchange = this.recorded(info, 0);
    // A deployment limits each key: the pace is kept per credentials sent.
    const credentials = credentialsOf(spec);
    await this.gate.enter();
    try {
      for (let local = 0; ;) {
        const { outcome, startedAt } = await this.tried(exchange, credentials, attempt);
        const retry = nextTryOf(method, outcome, { before: exchange.retries, local }, this.standing());
        if (!('kind' in outcome) && startedAt !== undefined) {
          const retryAt = retry ? performance.now() + retry.waitMs : undefined;
          this.pace.answered(credentials, startedAt, outcome, retryAt);
        }
        if (!retry) {
          this.watch.settled(outcome);
          this.settled(exchange);
          return exchange;
        }
        if (retry.reason === 'local') local++;
        this.retried[retry.reason] = (this.retried[retry.reason] ?? 0) + 1;
        const next = this.recorded(info, exchange.retries + 1);
        exchange.retriedAs = next.seq;
        exchange.retriedFor = retry.reason;
        this.settled(exchange);
        exchange = next;
        if (retry.waitMs > 0) {
          // A request waiting to be asked again leaves its place in flight to the others.
          this.gate.leave();
          await sleep(retry.waitMs);
          await this.gate.enter();
        }
      }
    } finally {
      this.gate.leave();
    }
  }

  /** A new attempt of the request, in `exchanges` from now on (in the order requested). */
  private recorded(request: RequestInfo, retries: number): Exchange {
    const exchange: Exchange = { seq: ++this.seq, request, durationMs: 0, retries };
    this.exchanges.push(exchange);
    return exchange;
  }

  /**
   * Waits for the pace, sends one attempt and writes what came of it into `exchange`; `startedAt`
   * is the start the pace granted (none when the run's time was over first).
   */
  private async tried(
    exchange: Exchange,
    credentials: readonly string[],
    attempt: AttemptRequest,
  ): Promise<{ outcome: AttemptOutcome; startedAt?: number }> {
    const startedAt = await this.pace.turn(credentials, this.way.runEnd.at);
    if (startedAt === undefined) {
      const outcome = this.way.runEnd.failure("waiting for the target's pace");
      exchange.error = outcome;
      return { outcome };
    }
    // The start the pace granted, on the wall clock: the HAR and the figures show the starts it counted.
    exchange.startedAt = Math.floor(performance.timeOrigin + startedAt);
    const outcome = await this.attempt(attempt);
    exchange.durationMs = Math.round(performance.now() - startedAt);
    if ('kind' in outcome) {
      const { local: _local, ...failure } = outcome;
      exchange.error = failure;
    } else {
      exchange.response = outcome;
    }
    return { outcome, startedAt };
  }

  /** Where the run stands for a retry (`retry.ts`). */
  private standing(): RunStanding {
    return {
      limits: this.options,
      budgetSpent: this.sent >= this.options.maxRequests,
      msLeft: this.way.runEnd.left(),
    };
  }

  private settled(exchange: Exchange): void {
    for (const listener of this.listeners) listener(exchange);
  }

  /** One attempt sent (`attempt.ts`), unless it is not to be sent at all; counted as sent. */
  private async attempt(attempt: AttemptRequest): Promise<AttemptOutcome> {
    const refused = await this.notSending();
    if (refused) return refused;
    this.sent++;
    const outcome = await attempted(this.way, attempt);
    if (!('kind' in outcome)) {
      const { method, target, headers } = attempt;
      this.watch.answered({ method, target, headers, line: lineOf(method, target) }, outcome);
    }
    return outcome;
  }

  /**
   * Why a request is not sent at all: the run's time is over, the target is gone (asked once more
   * after a streak of failures, `liveness.ts`), or the budget is spent.
   */
  private async notSending(): Promise<NetworkFailure | undefined> {
    if (this.way.runEnd.left() <= 0) return this.way.runEnd.failure('before it was sent');
    if (this.watch.gone) return { kind: 'gave-up', message: this.watch.gone };
    if (this.sent >= this.options.maxRequests) {
      return {
        kind: 'budget',
        message: `not sent: the request budget of ${this.options.maxRequests} is spent (raise --max-requests)`,
      };
    }
    const gone = await this.watch.goneBefore((known: KnownRequest) => {
      this.sent++;
      return attempted(this.way, { method: known.method, target: known.target, headers: known.headers });
    });
    return gone === undefined ? undefined : { kind: 'gave-up', message: gone };
  }
}
