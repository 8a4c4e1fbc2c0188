/**
 * The suite's only way to the target. Manners: bounded concurrency, a pace (`pace.ts`: `--rate-limit`
 * and what 429s teach), a deadline on every attempt that no leg escapes (connect, a proxy's CONNECT,
 * TLS, headers and body: `--timeout`), a request budget, a response size cap, redirects never
 * followed (so a key never travels to another origin), and identical GETs memoized so checks share
 * one fetch. What is tried again, and when, is `retry.ts`'s: a throttled answer (a 429, a 503 with
 * `Retry-After`) is waited out and asked again; each attempt is an exchange of its own, counts
 * against the budget and is paced, and a request waiting for its retry gives up its place in flight
 * to others; the request ends with its last attempt. Requests ask for `Accept-Encoding: identity` unless a check asks for a
 * coding; whatever coding an answer declares (gzip, x-gzip, deflate, br) is decoded under the same
 * size cap, so every check judges the content, and a body that does not decode is an `undecodable`
 * failure. Network trouble never throws: it comes back as an `Exchange` with an `error` a check
 * turns into a clear failure.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw } from 'node:zlib';
import { type Dispatcher, request } from 'undici';
import { KEY_PREFIX } from '../../spec/facts.ts';
import { hasDotSegment } from '../core/dot-segments.ts';
import { nearMissLabel, nearMissOf } from '../core/near-miss.ts';
import { Pace } from './pace.ts';
import { retryOf } from './retry.ts';
import { durationText } from '../core/duration.ts';
import { isFinal, RESPONSE_CAP_FLAG } from '../core/exchange.ts';
import { isThrottled } from '../core/observation.ts';
import type { KeyName, SuiteConfig } from '../core/configuration.ts';
import type {
  Exchange,
  RetryReason,
  KeyPlacement,
  KeyUse,
  NetworkFailure,
  RequestInfo,
  RequestSpec,
  ResponseData,
} from '../core/exchange.ts';
import type { Report, PaceSummary } from '../core/report-model.ts';
import { USER_AGENT } from '../core/tool.ts';
import { curlOf, curlReachArgs } from './curl.ts';
import { routeOf, targetTlsOf } from './dispatcher.ts';
import { rawAnswer } from './raw-answer.ts';
import { cutOf, failureOf } from './failures.ts';
import { type KnownRequest, TargetWatch } from './liveness.ts';
import type { ProxySetting } from '../core/configuration.ts';

/** How reports show the made-up key: any such key reproduces the request. */
export const MADE_UP_KEY_SHELL = `${KEY_PREFIX}$(openssl rand -hex 24)`;

/** Errors of the suite's own side (no socket, no file descriptor): the request never reached the target. */
const LOCAL_ERRORS: ReadonlySet<string> = new Set([
  'EADDRNOTAVAIL',
  'EMFILE',
  'ENFILE',
  'ENOBUFS',
  'EADDRINUSE',
]);
const MAX_LOCAL_RETRIES = 2;

/** What one attempt came to: an answer, or why there was none. */
type AttemptOutcome = ResponseData | (NetworkFailure & { local?: true });

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

/**
 * The part of `--max-duration` kept for judging and reporting once the last request has ended: a
 * tenth, at most ten seconds.
 */
const REPORT_RESERVE_MS = 10_000;

/** Told of every attempt once it is settled (answered, failed, or not sent). */
export type ExchangeListener = (exchange: Exchange) => void;

export class HttpClient {
  /** Every exchange of the run, in the order they were sent (memoized fetches appear once). */
  readonly exchanges: Exchange[] = [];
  sent = 0;
  memoized = 0;
  private readonly agent: Dispatcher;
  /** The proxy every request goes through (`dispatcher.ts`); undefined for a direct connection. */
  readonly proxy: ProxySetting | undefined;
  /** curl's flags for the same way there, in every reproduction. */
  private readonly curlArgs: string[];
  /** The target's TLS options, as the dispatcher's, for an answer read off the socket. */
  private readonly socketTls: ReturnType<typeof targetTlsOf>;
  private readonly memo = new Map<string, Promise<Exchange>>();
  private readonly waiting: (() => void)[] = [];
  private inFlight = 0;
  private seq = 0;
  /** Whether the target is gone (`liveness.ts`). */
  private readonly watch = new TargetWatch();
  /** Request starts per window, and the pauses 429s ask for. */
  private readonly pace: Pace;
  /** Attempts tried again, by why. */
  readonly retried: Partial<Record<RetryReason, number>> = {};
  private readonly listeners: ExchangeListener[] = [];
  private readonly options: ClientOptions;
  /** Random per run; reports show it as a shell expression that makes another one. Public for the echo check. */
  readonly madeUpKey = `${KEY_PREFIX}${randomBytes(24).toString('hex')}`;
  /** The base URL's origin and path, for a path sent as written (`asWrittenOf`). */
  private readonly base: { origin: string; path: string };
  /** When nothing more is sent or waited for (`--max-duration`), on the monotonic clock. */
  private readonly deadline: number;

  constructor(options: ClientOptions) {
    this.options = options;
    const total = options.maxDurationMs ?? Number.POSITIVE_INFINITY;
    this.deadline = performance.now() + total - Math.min(REPORT_RESERVE_MS, total / 10);
    this.pace = new Pace(options.rateLimit);
    const route = routeOf(options);
    this.agent = route.dispatcher;
    this.proxy = route.proxy;
    this.curlArgs = curlReachArgs(options.reach, route.proxy);
    this.socketTls = targetTlsOf(options);
    const base = new URL(options.baseUrl);
    this.base = { origin: base.origin, path: base.pathname.replace(/\/+$/, '') };
  }

  /** Sends a request (or reuses the answer of an identical GET). Never throws for network trouble. */
  send(spec: RequestSpec): Promise<Exchange> {
    const method = (spec.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') return this.sendNow(spec, method);
    const key = JSON.stringify([
      method,
      spec.path,
      spec.query ?? '',
      spec.auth ?? null,
      spec.madeUpKey ?? null,
      spec.headers ?? {},
      spec.again ?? 0,
      spec.offSocket ?? false,
    ]);
    const known = this.memo.get(key);
    if (known) {
      this.memoized++;
      return known;
    }
    const pending = this.sendNow(spec, method);
    this.memo.set(key, pending);
    return pending;
  }

  urlOf(spec: Pick<RequestSpec, 'path' | 'query'>): string {
    return `${this.options.baseUrl}${spec.path}${spec.query !== undefined ? `?${spec.query}` : ''}`;
  }

  async close(): Promise<void> {
    await this.agent.destroy();
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
    const { wire, display, keys, nearMisses, inQuery } = this.headersOf(spec);
    const url = this.urlOf(withQuery(spec, inQuery, 'shown'));
    const wireUrl = inQuery ? this.urlOf(withQuery(spec, inQuery, 'value')) : url;
    const asWritten = this.asWrittenOf(withQuery(spec, inQuery, 'value'));
    const info: RequestInfo = { method, url, keys, headers: display, curl: '' };
    if (nearMisses) info.nearMisses = nearMisses;
    if (spec.body !== undefined) info.body = spec.body;
    // curl removes dot segments too, unless told not to, and never sends a fragment unless given the target.
    info.curl = curlOf(info, asWritten ? [...this.curlArgs, ...asWrittenCurlArgs(asWritten)] : this.curlArgs);
    let exchange = this.recorded(info, 0);
    // A deployment limits each key: the pace is kept per credentials sent.
    const credentials = credentialsOf(spec);
    await this.acquire();
    try {
      for (let local = 0; ;) {
        const { outcome, startedAt } = await this.tried(exchange, credentials, () =>
          this.attempt(method, asWritten ?? wireUrl, wire, spec.body, spec.offSocket === true),
        );
        const retry = this.retryOf(method, outcome, exchange.retries, local);
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
          this.release();
          await sleep(retry.waitMs);
          await this.acquire();
        }
      }
    } finally {
      this.release();
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
    send: () => Promise<AttemptOutcome>,
  ): Promise<{ outcome: AttemptOutcome; startedAt?: number }> {
    const startedAt = await this.pace.turn(credentials, this.deadline);
    if (startedAt === undefined) {
      const outcome = this.pastDeadline("waiting for the target's pace");
      exchange.error = outcome;
      return { outcome };
    }
    // The start the pace granted, on the wall clock: the HAR and the figures show the starts it counted.
    exchange.startedAt = Math.floor(performance.timeOrigin + startedAt);
    const outcome = await send();
    exchange.durationMs = Math.round(performance.now() - startedAt);
    if ('kind' in outcome) {
      const { local: _local, ...failure } = outcome;
      exchange.error = failure;
    } else {
      exchange.response = outcome;
    }
    return { outcome, startedAt };
  }

  /** Whether and when to try again (`retry.ts`), or undefined when this attempt is the last. */
  private retryOf(
    method: string,
    outcome: AttemptOutcome,
    retries: number,
    local: number,
  ): { reason: RetryReason; waitMs: number } | undefined {
    if ('kind' in outcome && outcome.local) {
      return local < MAX_LOCAL_RETRIES ? { reason: 'local', waitMs: 0 } : undefined;
    }
    // The budget is spent: the answer in hand stands rather than a "not sent".
    if (this.sent >= this.options.maxRequests) return undefined;
    const retry = retryOf(method, outcome, retries, this.options);
    // A wait past the run's end is not waited: the answer in hand stands.
    if (retry && performance.now() + retry.waitMs >= this.deadline) return undefined;
    return retry;
  }

  private settled(exchange: Exchange): void {
    for (const listener of this.listeners) listener(exchange);
  }

  /**
   * Where a path that URL parsing would change goes, as written: parsing the URL (WHATWG, as
   * undici's `request(url)` does) removes dot segments (`.`, `..`, `%2e` spellings too), turns a
   * backslash into a slash and cuts a `#` off before the wire, and a router that reads such a path
   * otherwise than the gateway in front of it is what the other spellings of a path probe
   * (AUTH-015). Undefined for any other path, which goes by its URL as before.
   */
  private asWrittenOf(spec: Pick<RequestSpec, 'path' | 'query'>): AsWritten | undefined {
    const query = spec.query !== undefined ? `?${spec.query}` : '';
    const path = `${this.base.path}${spec.path}${query}`;
    if (!hasDotSegment(spec.path) && !changedByParsing(this.base.origin, path)) return undefined;
    return { origin: this.base.origin, path };
  }

  /**
   * One attempt, bounded by `--timeout` from its start whatever leg it is in: undici cannot abort a
   * request still waiting for its connection (a proxy that accepted and never answers CONNECT), so
   * the deadline does not wait for undici; the dispatcher's own timeouts (`dispatcher.ts`) end the
   * abandoned attempt soon after.
   */
  private async attempt(
    method: string,
    target: string | AsWritten,
    headers: Record<string, string>,
    body: string | undefined,
    offSocket = false,
  ): Promise<AttemptOutcome> {
    const refused = await this.notSending();
    if (refused) return refused;
    this.sent++;
    const outcome = await this.bounded(method, target, headers, body, offSocket);
    if (!('kind' in outcome))
      this.watch.answered({ method, target, headers, line: lineOf(method, target) }, outcome);
    return outcome;
  }

  /** One attempt already counted as sent, bounded by `--timeout` (`attempt`). */
  private async bounded(
    method: string,
    target: string | AsWritten,
    headers: Record<string, string>,
    body: string | undefined,
    offSocket = false,
  ): Promise<AttemptOutcome> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // The run's end comes first when it is nearer than `--timeout`.
    const runEnds = this.deadline - performance.now() < this.options.timeoutMs;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(
        () => {
          resolve('deadline');
          controller.abort();
        },
        Math.min(this.options.timeoutMs, Math.max(0, this.deadline - performance.now())),
      );
    });
    const answering = offSocket
      ? this.offSocketAnswerOf(method, target, headers, body, controller)
      : this.answerOf(method, target, headers, body, controller);
    const work = answering.catch((error: unknown) => ({ thrown: error }) as const);
    try {
      const first = await Promise.race([work, deadline]);
      if (first === 'deadline') {
        if (runEnds) return this.pastDeadline('waiting for an answer');
        return {
          kind: 'timeout',
          message: `no complete answer within ${this.options.timeoutMs} ms (--timeout)`,
        };
      }
      if (!('thrown' in first)) return first;
      const code = (first.thrown as { code?: string }).code ?? '';
      if (LOCAL_ERRORS.has(code)) {
        return { kind: 'network', message: `the suite could not open a connection (${code})`, local: true };
      }
      return failureOf(first.thrown, this.proxy);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends the request and reads its answer, decoded; throws what undici throws. */
  private async answerOf(
    method: string,
    target: string | AsWritten,
    headers: Record<string, string>,
    body: string | undefined,
    controller: AbortController,
  ): Promise<ResponseData | NetworkFailure> {
    const options = { method: method as 'GET', headers, body, signal: controller.signal };
    // `Dispatcher.request` sends the path as given, through the same dispatcher (an http target
    // behind a proxy gets it in the absolute-URI request, `origin + path`).
    const answer =
      typeof target === 'string'
        ? await request(target, { ...options, dispatcher: this.agent })
        : await this.agent.request({ ...options, ...target });
    const wire = await this.bodyOf(answer, controller);
    if (!Buffer.isBuffer(wire)) return wire;
    return this.contentOf(answer, wire, method);
  }

  /**
   * The answer read off the socket (`raw-answer.ts`): its status, headers and the bytes after them.
   * Through a proxy the request goes as any other, and the answer says why it was not read so.
   */
  private async offSocketAnswerOf(
    method: string,
    target: string | AsWritten,
    headers: Record<string, string>,
    body: string | undefined,
    controller: AbortController,
  ): Promise<ResponseData | NetworkFailure> {
    if (this.proxy || body !== undefined) {
      const answer = await this.answerOf(method, target, headers, body, controller);
      if ('kind' in answer) return answer;
      const unread = this.proxy ? 'the run goes through a proxy' : 'a request with a body';
      return { ...answer, socket: { unread: `${unread}: the answer was read by the HTTP client` } };
    }
    const url = typeof target === 'string' ? new URL(target) : undefined;
    const raw = await rawAnswer({
      origin: url?.origin ?? (target as AsWritten).origin,
      target: url ? `${url.pathname}${url.search}` : (target as AsWritten).path,
      method,
      headers,
      tls: this.socketTls,
      signal: controller.signal,
    });
    const response = responseOf(raw.status, raw.headers, Buffer.alloc(0));
    response.socket = { afterHeaders: raw.afterHeaders };
    // An answer with content (a revalidation answered 200) is counted, not parsed: its body is not kept.
    if (method !== 'HEAD' && raw.status !== 204 && raw.status !== 304) response.unrecorded = true;
    return response;
  }

  /** A request the run's end cut short, and what it was doing then. */
  private pastDeadline(waiting: string): NetworkFailure {
    const limit = durationText(this.options.maxDurationMs ?? 0);
    return { kind: 'past-deadline', message: `the run reached --max-duration ${limit} ${waiting}` };
  }

  /**
   * Why a request is not sent at all: the run's time is over, the target is gone (asked once more
   * after a streak of failures, `liveness.ts`), or the budget is spent.
   */
  private async notSending(): Promise<NetworkFailure | undefined> {
    if (performance.now() >= this.deadline) return this.pastDeadline('before it was sent');
    if (this.watch.gone) return { kind: 'gave-up', message: this.watch.gone };
    if (this.sent >= this.options.maxRequests) {
      return {
        kind: 'budget',
        message: `not sent: the request budget of ${this.options.maxRequests} is spent (raise --max-requests)`,
      };
    }
    const gone = await this.watch.goneBefore((known: KnownRequest) => {
      this.sent++;
      return this.bounded(known.method, known.target, known.headers, undefined);
    });
    return gone === undefined ? undefined : { kind: 'gave-up', message: gone };
  }

  /** The bytes on the wire, cut off (and the request aborted) past `maxResponseBytes`. */
  private async bodyOf(
    answer: Dispatcher.ResponseData,
    controller: AbortController,
  ): Promise<Buffer | NetworkFailure> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    try {
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > this.options.maxResponseBytes) {
          controller.abort();
          return {
            kind: 'too-large',
            message: `the answer (status ${answer.statusCode}) exceeded ${this.options.maxResponseBytes} bytes and was cut off (${RESPONSE_CAP_FLAG})`,
          };
        }
        chunks.push(chunk);
      }
    } catch (error) {
      // The status and headers came: the target answered, and the answer broke off (`failures.ts`).
      if (controller.signal.aborted) throw error;
      return cutOf(error, { status: answer.statusCode, headers: answer.headers, arrived: bytes });
    }
    return Buffer.concat(chunks);
  }

  /** The answer as the checks judge it: its content decoded from whatever coding it declares. */
  private async contentOf(
    answer: Dispatcher.ResponseData,
    wire: Buffer,
    method: string,
  ): Promise<ResponseData | NetworkFailure> {
    const coding = codingOf(answer.headers['content-encoding']);
    if (coding === NO_CODING || wire.length === 0 || method === 'HEAD') {
      return responseOf(answer.statusCode, answer.headers, wire);
    }
    const content = await this.decoded(coding, wire, answer.statusCode);
    if (!Buffer.isBuffer(content)) return content;
    const response = responseOf(answer.statusCode, answer.headers, content);
    response.encoded = { coding, bytes: wire.length };
    return response;
  }

  /**
   * The content of a content-coded answer (RFC 9110 §8.4): every coding it names is undone, last
   * first, each output held to `maxResponseBytes` (a small bomb is cut off like a large answer). A
   * coding no client knows, or bytes that do not decode, make the answer unreadable: `undecodable`.
   */
  private async decoded(coding: string, wire: Buffer, status: number): Promise<Buffer | NetworkFailure> {
    const codings = coding
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '' && c !== NO_CODING)
      .reverse();
    let content = wire;
    for (const name of codings) {
      const decode = DECODERS[name];
      if (!decode) {
        return {
          kind: 'undecodable',
          message: `the answer (status ${status}) says Content-Encoding: ${coding}, which no client can be expected to decode (known: ${Object.keys(DECODERS).join(', ')})`,
        };
      }
      try {
        content = await decode(content, { maxOutputLength: this.options.maxResponseBytes });
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === 'ERR_BUFFER_TOO_LARGE') {
          return {
            kind: 'too-large',
            message: `the answer (status ${status}) decoded from ${name} exceeded ${this.options.maxResponseBytes} bytes and was cut off (${RESPONSE_CAP_FLAG})`,
          };
        }
        return {
          kind: 'undecodable',
          message: `the answer (status ${status}) says Content-Encoding: ${coding} but its body does not decode (${code ?? (error as Error).message})`,
        };
      }
    }
    return content;
  }

  private headersOf(spec: RequestSpec): {
    wire: Record<string, string>;
    display: Record<string, string>;
    keys: KeyName[];
    nearMisses?: RequestInfo['nearMisses'];
    /** A key placed in the query: the parameter, its value on the wire and as reports show it. */
    inQuery?: QueryKey;
  } {
    // `identity` unless a check asks for a coding: a deployment may compress a request that names
    // none (RFC 9110 §12.5.3), and the suite must not fail it for that.
    const wire: Record<string, string> = {
      'user-agent': USER_AGENT,
      accept: 'application/json',
      'accept-encoding': NO_CODING,
    };
    const display: Record<string, string> = {};
    const keys: KeyName[] = [];
    let nearMisses: RequestInfo['nearMisses'];
    let inQuery: QueryKey | undefined;
    for (const use of spec.auth === undefined ? [] : [spec.auth].flat()) {
      const { value, shown } = this.keyOf(use);
      if (use.nearMiss) (nearMisses ??= []).push({ key: use.key, nearMiss: use.nearMiss });
      else keys.push(use.key);
      if (use.placed?.in === 'query') {
        inQuery = { name: use.placed.name, value, shown };
        continue;
      }
      if (use.placed) {
        placeOutOfHeaders(use.placed, value, shown, wire, display);
        continue;
      }
      const scheme = use.scheme ?? (use.via === 'bearer' ? 'Bearer' : '');
      const before = scheme === '' ? '' : `${scheme} `;
      if (use.via === 'bearer') {
        wire.authorization = `${before}${value}`;
        display.Authorization = `${before}${shown}`;
      } else {
        wire['x-api-key'] = `${before}${value}`;
        display['x-api-key'] = `${before}${shown}`;
      }
    }
    if (spec.madeUpKey === 'bearer') {
      wire.authorization = `Bearer ${this.madeUpKey}`;
      display.Authorization = `Bearer ${MADE_UP_KEY_SHELL}`;
    } else if (spec.madeUpKey === 'x-api-key') {
      wire['x-api-key'] = this.madeUpKey;
      display['x-api-key'] = MADE_UP_KEY_SHELL;
    }
    // The gateway's headers go on every request, under a check's own; reports show their variable.
    for (const header of this.options.reach?.headers ?? []) {
      wire[header.name.toLowerCase()] = header.value;
      display[header.name] = header.shown;
    }
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      wire[name.toLowerCase()] = value;
      display[name] = value;
    }
    if (spec.body !== undefined && !('content-type' in wire)) {
      wire['content-type'] = 'application/json';
      display['Content-Type'] = 'application/json';
    }
    return { wire, display, keys, ...(nearMisses ? { nearMisses } : {}), ...(inQuery ? { inQuery } : {}) };
  }

  /** A configured key's value (or its near miss, derived now) and how reports show it. */
  private keyOf(use: KeyUse): { value: string; shown: string } {
    const configured = this.options.keys[use.key];
    if (configured === undefined) throw new Error(`${use.key} is not configured`);
    if (use.dropPrefix !== undefined && configured.startsWith(use.dropPrefix)) {
      return {
        value: configured.slice(use.dropPrefix.length),
        shown: `<$${use.key} without ${use.dropPrefix}>`,
      };
    }
    if (!use.nearMiss) return { value: configured, shown: `$${use.key}` };
    const value = nearMissOf(configured, use.nearMiss);
    if (value === undefined) throw new Error(`${use.key} has no near miss "${use.nearMiss}"`);
    return { value, shown: `<${nearMissLabel(use.key, use.nearMiss)}>` };
  }

  private acquire(): Promise<void> {
    if (this.inFlight < this.options.concurrency) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }
}

type Decoder = (input: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>;
const gunzipAsync = promisify(gunzip) as Decoder;
const inflateAsync = promisify(inflate) as Decoder;
const inflateRawAsync = promisify(inflateRaw) as Decoder;
/** `deflate` is zlib-wrapped (RFC 9110 §8.4.1.2); some servers send it raw, which clients accept too. */
const inflateEither: Decoder = (input, options) =>
  inflateAsync(input, options).catch((error: { code?: string }) =>
    error.code === 'ERR_BUFFER_TOO_LARGE' ? Promise.reject(error) : inflateRawAsync(input, options),
  );
/** The codings the client decodes, by name. */
const DECODERS: Record<string, Decoder> = {
  gzip: gunzipAsync,
  'x-gzip': gunzipAsync,
  deflate: inflateEither,
  br: promisify(brotliDecompress) as Decoder,
};

/**
 * What identifies each credential a request sends to the target: its keys, and their near misses.
 * A near miss counts against its key as well: a gateway's limit may well read it as the key. A key
 * out of its place (a cookie, the query) counts as no key too: a limit that does not read it there
 * counts the request with those that carry none.
 */
function credentialsOf(spec: RequestSpec): string[] {
  const uses = spec.auth === undefined ? [] : [spec.auth].flat();
  const keys = uses.flatMap((use) => [
    use.key,
    ...(use.nearMiss ? [`${use.key}~${use.nearMiss}`] : []),
    ...(use.placed ? [''] : []),
  ]);
  if (spec.madeUpKey) keys.push('made-up');
  return [...new Set(keys)];
}

/** A key sent in a cookie, or as the user of Basic authentication (`KeyUse.placed`). */
function placeOutOfHeaders(
  placed: KeyPlacement,
  value: string,
  shown: string,
  wire: Record<string, string>,
  display: Record<string, string>,
): void {
  if (placed.in === 'cookie') {
    wire.cookie = `${placed.name}=${value}`;
    display.Cookie = `${placed.name}=${shown}`;
  } else if (placed.in === 'basic') {
    wire.authorization = `Basic ${Buffer.from(`${value}:`).toString('base64')}`;
    display.Authorization = `Basic <base64 of ${shown}:>`;
  }
}

/** A key sent as a query parameter (`KeyUse.placed`). */
interface QueryKey {
  name: string;
  value: string;
  shown: string;
}

/** The request with the key's parameter after its query: its value for the wire, its variable for reports. */
function withQuery<S extends Pick<RequestSpec, 'path' | 'query'>>(
  spec: S,
  key: QueryKey | undefined,
  as: 'value' | 'shown',
): S {
  if (!key) return spec;
  const pair = `${encodeURIComponent(key.name)}=${as === 'value' ? encodeURIComponent(key.value) : key.shown}`;
  return { ...spec, query: spec.query ? `${spec.query}&${pair}` : pair };
}

/** An origin and a path to send exactly as written (`HttpClient.asWrittenOf`). */
interface AsWritten {
  origin: string;
  path: string;
}

/** Whether WHATWG URL parsing would send this path and query otherwise than written. */
function changedByParsing(origin: string, path: string): boolean {
  try {
    const parsed = new URL(path, origin);
    return `${parsed.pathname}${parsed.search}` !== path;
  } catch {
    return true;
  }
}

/** How a request to ask again is named in a message: its method and URL, never a header. */
function lineOf(method: string, target: string | AsWritten): string {
  return `${method} ${typeof target === 'string' ? target : `${target.origin}${target.path}`}`;
}

/** curl's flags for a path sent as written: dot segments kept, and a `#` sent as the target's. */
function asWrittenCurlArgs(asWritten: AsWritten): string[] {
  if (!asWritten.path.includes('#')) return ['--path-as-is'];
  return ['--path-as-is', '--request-target', `'${asWritten.path.replaceAll("'", `'\\''`)}'`];
}

/** The content coding that is no coding (RFC 9110 §8.4.1). */
const NO_CODING = 'identity';

/** The answer's content coding, lower case; `identity` when it names none. */
function codingOf(header: string | string[] | undefined): string {
  const value = [header ?? []].flat().join(',').trim().toLowerCase();
  return value === '' ? NO_CODING : value;
}

/** An answer as the checks judge it, from its status, headers and (decoded) content, bytes or text. */
export function responseOf(
  status: number,
  raw: Record<string, string | string[] | undefined>,
  content: Buffer | string,
): ResponseData {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return answerOf(status, headers, content);
}

/** How an answer's body is read: its JSON, and the size in bytes of a body given as text. */
export interface BodyReader {
  json(response: ResponseData): unknown;
  bytes(response: ResponseData): number;
}

/** Each answer's body read afresh. */
const EACH_BODY: BodyReader = {
  json: (response) => JSON.parse(response.body),
  bytes: (response) => Buffer.byteLength(response.body),
};

/**
 * An answer from headers already in lower case, one value each (a recording's). A recording's
 * reader gives a `reader` that reads each distinct body once for all the answers that carry it.
 */
export function answerOf(
  status: number,
  headers: Record<string, string>,
  content: Buffer | string,
  reader: BodyReader = EACH_BODY,
): ResponseData {
  // A recording (`--traffic`) holds most bodies as text already.
  const body = typeof content === 'string' ? content : content.toString('utf8');
  const response: ResponseData = { status, headers, body, bytes: 0 };
  response.bytes = typeof content === 'string' ? reader.bytes(response) : content.length;
  const contentType = headers['content-type'];
  if (contentType !== undefined) {
    response.contentType = contentType;
    response.mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  }
  if (body.trim() !== '') {
    try {
      response.json = reader.json(response);
    } catch (error) {
      response.jsonError = `not JSON (${(error as Error).message}); it starts ${JSON.stringify(body.slice(0, 60))}`;
    }
  }
  return response;
}
