/**
 * `--har FILE`: the run's traffic as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), one
 * entry per request sent, every attempt of a request tried again included (`_retriedAs` names the
 * attempt that replaced it), so it can be replayed or fed to other tools. Keys never appear: requests
 * carry them as `$CONFORMANCE_API_KEY` etc. (as the curl reproductions do), the whole text passes the
 * configured-key redactor, and anything else shaped like a key (an echoed made-up key, another
 * campaign's key in a body) is replaced too.
 */
import { KEY_PREFIX } from '../../spec/facts.ts';
import { STATUS_CODES } from 'node:http';
import type { Exchange } from '../core/exchange.ts';
import type { Report } from '../core/report-model.ts';
import { USER_AGENT } from '../core/tool.ts';
import type { Redactor } from '../core/redact.ts';

interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: [];
    headers: HarHeader[];
    queryString: HarHeader[];
    postData?: { mimeType: string; text: string };
    headersSize: -1;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: [];
    headers: HarHeader[];
    /** `size` is the decoded content, `bodySize` what came on the wire, `compression` the difference. */
    content: { size: number; compression?: number; mimeType: string; text?: string };
    redirectURL: string;
    headersSize: -1;
    bodySize: number;
    /** Why there is no answer (timeout, reset...): status 0, as browsers record a failed request. */
    _error?: string;
  };
  cache: Record<string, never>;
  /** Only the total is measured: it is reported as waiting time. */
  timings: { blocked: -1; dns: -1; connect: -1; ssl: -1; send: number; wait: number; receive: number };
  /**
   * The suite's request number; how many attempts of the same request came before this one; on an
   * attempt that was tried again, the `_seq` of the attempt that replaced it and why.
   */
  _seq: number;
  _retries: number;
  _retriedAs?: number;
  _retriedFor?: string;
}

export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    comment: string;
    entries: HarEntry[];
  };
}

/** Not sent at all: the budget was spent or the target had stopped answering (or never started: the run's time was over). */
const NOT_SENT = new Set(['budget', 'gave-up']);

/** Anything shaped like a key of this API (`svc_sk_live_<body>`), whoever's it is. */
const KEY_SHAPED = new RegExp(`${KEY_PREFIX}[A-Za-z0-9._~+/=%-]{6,}`, 'g');
const KEY_SHAPED_PLACEHOLDER = `${KEY_PREFIX}[redacted]`;

export function harOf(exchanges: readonly Exchange[], report: Report): Har {
  const started = Date.parse(report.startedAt);
  return {
    log: {
      version: '1.2',
      creator: { name: report.tool.name, version: report.tool.version },
      comment: `Conformance run against ${report.target.baseUrl}. Keys appear as $CONFORMANCE_API_KEY etc., gateway headers (--header) as $CONFORMANCE_HEADER_NAME: set them before replaying.`,
      entries: exchanges
        .filter((e) => !(e.error && (NOT_SENT.has(e.error.kind) || e.startedAt === undefined)))
        .map((e) => entryOf(e, Number.isNaN(started) ? Date.now() : started)),
    },
  };
}

/** The HAR as written: JSON, every configured key and anything key-shaped redacted. */
export function harText(exchanges: readonly Exchange[], report: Report, redact: Redactor): string {
  return redact(`${JSON.stringify(harOf(exchanges, report), null, 2)}\n`).replace(
    KEY_SHAPED,
    KEY_SHAPED_PLACEHOLDER,
  );
}

function entryOf(exchange: Exchange, runStarted: number): HarEntry {
  const { request, response, error } = exchange;
  const url = new URL(request.url);
  const requestHeaders = headersSent(request.headers);
  const requestBody = request.body === undefined ? 0 : Buffer.byteLength(request.body);
  const entry: HarEntry = {
    startedDateTime: new Date(exchange.startedAt ?? runStarted).toISOString(),
    time: exchange.durationMs,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: requestHeaders,
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      headersSize: -1,
      bodySize: requestBody,
    },
    response: {
      status: response?.status ?? 0,
      statusText: response ? (STATUS_CODES[response.status] ?? '') : '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: Object.entries(response?.headers ?? {}).map(([name, value]) => ({ name, value })),
      content: { size: response?.bytes ?? 0, mimeType: response?.contentType ?? 'x-unknown' },
      redirectURL: response?.headers.location ?? '',
      headersSize: -1,
      bodySize: response?.encoded?.bytes ?? response?.bytes ?? 0,
    },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: exchange.durationMs, receive: 0 },
    _seq: exchange.seq,
    _retries: exchange.retries,
  };
  if (request.body !== undefined) {
    const mimeType = requestHeaders.find((h) => h.name.toLowerCase() === 'content-type')?.value;
    entry.request.postData = { mimeType: mimeType ?? 'application/json', text: request.body };
  }
  if (response && response.body !== '') entry.response.content.text = response.body;
  if (response?.encoded) entry.response.content.compression = response.bytes - response.encoded.bytes;
  if (error) entry.response._error = `${error.kind}: ${error.message}`;
  if (exchange.retriedAs !== undefined) {
    entry._retriedAs = exchange.retriedAs;
    if (exchange.retriedFor) entry._retriedFor = exchange.retriedFor;
  }
  return entry;
}

/**
 * The headers as sent: the client's own (`User-Agent`, `Accept`) under the request's, whose key
 * headers already read `Bearer $CONFORMANCE_API_KEY` (the client never shows a key's value).
 */
function headersSent(shown: Record<string, string>): HarHeader[] {
  const headers = new Map<string, HarHeader>([
    ['user-agent', { name: 'User-Agent', value: USER_AGENT }],
    ['accept', { name: 'Accept', value: 'application/json' }],
  ]);
  for (const [name, value] of Object.entries(shown)) headers.set(name.toLowerCase(), { name, value });
  return [...headers.values()];
}
