/**
 * The suite's only way to the target. Manners: bounded concurrency, a timeout covering headers and
 * body, a request budget, a response size cap, redirects never followed (so a key never travels to
 * another origin), 429 waited out (its `Retry-After`, a few times, bounded; the whole client pauses
 * meanwhile), and identical GETs memoized so checks share one fetch. Requests ask for
 * `Accept-Encoding: identity` unless a check asks for a coding; whatever coding an answer declares
 * (gzip, x-gzip, deflate, br) is decoded under the same size cap, so every check judges the
 * content, and a body that does not decode is an `undecodable` failure. Only the suite's own
 * connection trouble (local resources) is retried: a reset or a 5xx from the target is its answer.
 * Every attempt counts against the budget. Network trouble never throws: it comes back as an
 * `Exchange` with an `error` a check turns into a clear failure.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw } from 'node:zlib';
import { type Dispatcher, request } from 'undici';
import { KEY_PREFIX } from '../spec/facts.ts';
import { hasDotSegment } from './dot-segments.ts';
import { nearMissLabel, nearMissOf } from './near-miss.ts';
import { RESPONSE_CAP_FLAG } from './types.ts';
import type {
  Exchange,
  FailureKind,
  KeyName,
  KeyUse,
  NetworkFailure,
  RequestInfo,
  RequestSpec,
  ResponseData,
  SuiteConfig,
} from './types.ts';
import { USER_AGENT } from './tool.ts';
import { curlOf, curlReachArgs } from './curl.ts';
import { routeOf } from './dispatcher.ts';
import { shownProxy } from './reach.ts';
import type { ProxySetting } from './types.ts';

/** How reports show the made-up key: any such key reproduces the request. */
export const MADE_UP_KEY_SHELL = `${KEY_PREFIX}$(openssl rand -hex 24)`;

/** Consecutive failures of these kinds make the client stop asking a target that is gone. */
const DEAD_TARGET_KINDS: ReadonlySet<FailureKind> = new Set([
  'connect',
  'timeout',
  'refused',
  'dns',
  'reset',
  'tls',
  'proxy',
]);
const GIVE_UP_AFTER = 3;
/** How many times one request waits out a 429 before its answer stands. */
const MAX_429_RETRIES = 5;
/** Errors of the suite's own side (no socket, no file descriptor): the request never reached the target. */
const LOCAL_ERRORS: ReadonlySet<string> = new Set([
  'EADDRNOTAVAIL',
  'EMFILE',
  'ENFILE',
  'ENOBUFS',
  'EADDRINUSE',
]);
const MAX_LOCAL_RETRIES = 2;

type ClientOptions = Pick<
  SuiteConfig,
  | 'baseUrl'
  | 'keys'
  | 'concurrency'
  | 'timeoutMs'
  | 'maxRequests'
  | 'maxResponseBytes'
  | 'maxRetryWaitMs'
  | 'reach'
> & { embedded?: boolean };

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
  private readonly memo = new Map<string, Promise<Exchange>>();
  private readonly waiting: (() => void)[] = [];
  private inFlight = 0;
  private seq = 0;
  private deadInARow = 0;
  /** Until when every request waits, after a 429 asked the client to slow down (ms since the epoch). */
  private pausedUntil = 0;
  /** Random per run; reports show it as a shell expression that makes another one. Public for the echo check. */
  readonly madeUpKey = `${KEY_PREFIX}${randomBytes(24).toString('hex')}`;
  private lastDeadMessage = '';
  /** The base URL's origin and path, for a path sent as written (`asWrittenOf`). */
  private readonly base: { origin: string; path: string };

  constructor(private readonly options: ClientOptions) {
    const route = routeOf(options);
    this.agent = route.dispatcher;
    this.proxy = route.proxy;
    this.curlArgs = curlReachArgs(options.reach, route.proxy);
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

  private async sendNow(spec: RequestSpec, method: string): Promise<Exchange> {
    const { wire, display, keys, nearMisses } = this.headersOf(spec);
    const url = this.urlOf(spec);
    const asWritten = this.asWrittenOf(spec);
    const info: RequestInfo = { method, url, keys, headers: display, curl: '' };
    if (nearMisses) info.nearMisses = nearMisses;
    if (spec.body !== undefined) info.body = spec.body;
    // curl removes dot segments too, unless told not to.
    info.curl = curlOf(info, asWritten ? [...this.curlArgs, '--path-as-is'] : this.curlArgs);
    const exchange: Exchange = { seq: ++this.seq, request: info, durationMs: 0, retries: 0 };
    this.exchanges.push(exchange);
    await this.acquire();
    const started = performance.now();
    exchange.startedAt = Date.now();
    try {
      let local = 0;
      for (;;) {
        const pause = this.pausedUntil - Date.now();
        if (pause > 0) await sleep(pause);
        const outcome = await this.attempt(method, asWritten ?? url, wire, spec.body);
        if ('kind' in outcome) {
          exchange.error = outcome;
          delete exchange.response;
          if (outcome.local && local++ < MAX_LOCAL_RETRIES) continue;
          break;
        }
        delete exchange.error;
        exchange.response = outcome;
        const wait =
          outcome.status === 429 && exchange.retries < MAX_429_RETRIES
            ? this.retryWaitOf(outcome)
            : undefined;
        if (wait === undefined) break;
        exchange.retries++;
        this.pausedUntil = Math.max(this.pausedUntil, Date.now() + wait);
      }
    } finally {
      exchange.durationMs = Math.round(performance.now() - started);
      this.release();
    }
    return exchange;
  }

  /**
   * Where a path with a dot segment (`.` or `..`, `%2e` spellings too) goes, as written: parsing
   * the URL (WHATWG, as undici's `request(url)` does) would remove the segment before the wire, and
   * a router that normalises it is what the path variants probe (AUTH-015). Undefined for any other
   * path, which goes by its URL as before.
   */
  private asWrittenOf(spec: Pick<RequestSpec, 'path' | 'query'>): AsWritten | undefined {
    if (!hasDotSegment(spec.path)) return undefined;
    const query = spec.query !== undefined ? `?${spec.query}` : '';
    return { origin: this.base.origin, path: `${this.base.path}${spec.path}${query}` };
  }

  private async attempt(
    method: string,
    target: string | AsWritten,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<ResponseData | (NetworkFailure & { local?: true })> {
    const refused = this.notSending();
    if (refused) return refused;
    this.sent++;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeoutMs);
    try {
      const options = { method: method as 'GET', headers, body, signal: controller.signal };
      // `Dispatcher.request` sends the path as given, through the same dispatcher (an http target
      // behind a proxy gets it in the absolute-URI request, `origin + path`).
      const answer =
        typeof target === 'string'
          ? await request(target, { ...options, dispatcher: this.agent })
          : await this.agent.request({ ...options, ...target });
      const wire = await this.bodyOf(answer, controller);
      if (!Buffer.isBuffer(wire)) return wire;
      this.deadInARow = 0;
      return await this.contentOf(answer, wire, method);
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (!timedOut && LOCAL_ERRORS.has(code)) {
        return { kind: 'network', message: `the suite could not open a connection (${code})`, local: true };
      }
      return this.dead(
        timedOut
          ? { kind: 'timeout', message: `no complete answer within ${this.options.timeoutMs} ms (--timeout)` }
          : failureOf(error, this.proxy),
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** Why a request is not sent at all: the target is gone, or the budget is spent. */
  private notSending(): NetworkFailure | undefined {
    if (this.deadInARow >= GIVE_UP_AFTER) {
      return {
        kind: 'gave-up',
        message: `not sent: the target stopped answering (${this.deadInARow} requests in a row failed; last: ${this.lastDeadMessage})`,
      };
    }
    if (this.sent >= this.options.maxRequests) {
      return {
        kind: 'budget',
        message: `not sent: the request budget of ${this.options.maxRequests} is spent (raise --max-requests)`,
      };
    }
    return undefined;
  }

  /** The bytes on the wire, cut off (and the request aborted) past `maxResponseBytes`. */
  private async bodyOf(
    answer: Dispatcher.ResponseData,
    controller: AbortController,
  ): Promise<Buffer | NetworkFailure> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of answer.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > this.options.maxResponseBytes) {
        controller.abort();
        return this.dead({
          kind: 'too-large',
          message: `the answer (status ${answer.statusCode}) exceeded ${this.options.maxResponseBytes} bytes and was cut off (${RESPONSE_CAP_FLAG})`,
        });
      }
      chunks.push(chunk);
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

  private dead(failure: NetworkFailure): NetworkFailure {
    if (DEAD_TARGET_KINDS.has(failure.kind)) {
      this.deadInARow++;
      this.lastDeadMessage = failure.message;
    } else {
      this.deadInARow = 0;
    }
    return failure;
  }

  /** Milliseconds to wait before retrying a 429, or undefined when it should not be retried. */
  private retryWaitOf(response: ResponseData): number | undefined {
    const raw = response.headers['retry-after'];
    let ms = 1_000;
    if (raw !== undefined) {
      if (/^\d+$/.test(raw.trim())) ms = Number(raw.trim()) * 1_000;
      else if (!Number.isNaN(Date.parse(raw))) ms = Math.max(0, Date.parse(raw) - Date.now());
    }
    return ms <= this.options.maxRetryWaitMs ? ms : undefined;
  }

  private headersOf(spec: RequestSpec): {
    wire: Record<string, string>;
    display: Record<string, string>;
    keys: KeyName[];
    nearMisses?: RequestInfo['nearMisses'];
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
    for (const use of spec.auth === undefined ? [] : [spec.auth].flat()) {
      const { value, shown } = this.keyOf(use);
      if (use.nearMiss) (nearMisses ??= []).push({ key: use.key, nearMiss: use.nearMiss });
      else keys.push(use.key);
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
      display[header.name] = `$${header.variable}`;
    }
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      wire[name.toLowerCase()] = value;
      display[name] = value;
    }
    if (spec.body !== undefined && !('content-type' in wire)) {
      wire['content-type'] = 'application/json';
      display['Content-Type'] = 'application/json';
    }
    return { wire, display, keys, ...(nearMisses ? { nearMisses } : {}) };
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

/** An origin and a path to send exactly as written (`HttpClient.asWrittenOf`). */
interface AsWritten {
  origin: string;
  path: string;
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

/** An answer from headers already in lower case, one value each (a recording's). */
export function answerOf(
  status: number,
  headers: Record<string, string>,
  content: Buffer | string,
): ResponseData {
  // A recording (`--traffic`) holds most bodies as text already.
  const body = typeof content === 'string' ? content : content.toString('utf8');
  const bytes = typeof content === 'string' ? Buffer.byteLength(content) : content.length;
  const response: ResponseData = { status, headers, body, bytes };
  const contentType = headers['content-type'];
  if (contentType !== undefined) {
    response.contentType = contentType;
    response.mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  }
  if (body.trim() !== '') {
    try {
      response.json = JSON.parse(body);
    } catch (error) {
      response.jsonError = `not JSON (${(error as Error).message}); it starts ${JSON.stringify(body.slice(0, 60))}`;
    }
  }
  return response;
}

function failureOf(error: unknown, proxy: ProxySetting | undefined): NetworkFailure {
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code ?? '';
  const message = err.message ?? String(error);
  return (
    proxyFailureOf(code, message, proxy) ??
    tlsFailureOf(code, message) ??
    plainFailureOf(error, code, message)
  );
}

/**
 * Through a proxy the suite connects only to the proxy: a refused, unknown or silent address is the
 * proxy's, and a refused CONNECT (or a 407) is the proxy saying no.
 */
function proxyFailureOf(
  code: string,
  message: string,
  proxy: ProxySetting | undefined,
): NetworkFailure | undefined {
  if (!proxy) return undefined;
  const where = `the proxy ${shownProxy(proxy)} (${proxy.from})`;
  if (PROXY_CONNECT_CODES.has(code)) {
    return { kind: 'proxy', code, message: `${where} cannot be reached (${code})` };
  }
  const refused = /Proxy response \((\d+)\)|Proxy Authentication Required \((\d+)\)/.exec(message);
  const status = refused?.[1] ?? refused?.[2];
  if (status === undefined) return undefined;
  const what = status === '407' ? 'asks for credentials (407)' : `answered ${status} to CONNECT`;
  return { kind: 'proxy', code: `PROXY_${status}`, message: `${where} ${what}` };
}
const PROXY_CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
]);

/** Node's codes of a certificate it does not accept, and OpenSSL's of a handshake that failed. */
function tlsFailureOf(code: string, message: string): NetworkFailure | undefined {
  if (CERTIFICATE_CODES.has(code))
    return { kind: 'tls', code, message: `the TLS certificate is not accepted: ${message} (${code})` };
  if (code.startsWith('ERR_SSL_'))
    return { kind: 'tls', code, message: `the TLS handshake failed (${code})` };
  return undefined;
}
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function plainFailureOf(error: unknown, code: string, message: string): NetworkFailure {
  if (code === 'ECONNREFUSED')
    return { kind: 'refused', message: 'connection refused: nothing listens there' };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { kind: 'dns', message: 'host name not found' };
  if (
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return { kind: 'timeout', message: `no complete answer in time (${code})` };
  }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') {
    return { kind: 'reset', code, message: `the connection was closed before a complete answer (${code})` };
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    return {
      kind: 'too-large',
      message: `the answer's headers exceeded the client's limit and were refused (${code})`,
    };
  }
  if (
    code.startsWith('HPE_') ||
    code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ||
    (error as Error).name === 'HTTPParserError'
  ) {
    return {
      kind: 'protocol',
      message: `the answer is not valid HTTP (${code ? `${code}: ` : ''}${message})`,
    };
  }
  return { kind: 'network', message: code ? `${code}: ${message}` : message };
}
