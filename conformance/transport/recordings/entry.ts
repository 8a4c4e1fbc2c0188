/**
 * One HAR entry as the checks judge an exchange: the request line (secrets left out), and the
 * answer with its body read back from the recording (as text, base64, or a file it attached), and
 * decoded when the recorder kept it content-coded (gzip, deflate, br; `codings.ts` tells which by
 * the header and the bytes).
 */
import { answerOf, type BodyReader } from '../../core/response-data.ts';
import { sharedBytesOf, sharedJsonOf } from '../../core/body-memo.ts';
import type { Keyring } from '../../core/credentials.ts';
import { parsedUrl } from '../../core/parsed-urls.ts';
import { curlOf } from '../curl.ts';
import type { Exchange, RequestInfo } from '../../core/exchange.ts';
import { codingsOf, decodeBody } from './codings.ts';
import { SECRET_HEADERS, type SecretNotes, shownUrl } from './secrets.ts';

/** The API base URL of a request: its origin and the path before the API's prefix (`/api/v1`), or undefined. */
export function apiBaseOf(url: URL, apiPrefix: string): string | undefined {
  const path = url.pathname;
  const at = path.endsWith(apiPrefix) ? path.length - apiPrefix.length : path.indexOf(`${apiPrefix}/`);
  if (at === -1) return undefined;
  return `${url.origin}${path.slice(0, at)}`;
}

interface HarNameValue {
  name?: unknown;
  value?: unknown;
}

/** The parts of an entry this module reads; anything else in it is left alone. */
export interface RawEntry {
  request?: { method?: unknown; url?: unknown; headers?: unknown };
  response?: {
    status?: unknown;
    headers?: unknown;
    content?: { text?: unknown; encoding?: unknown; mimeType?: unknown; _file?: unknown };
  };
  startedDateTime?: unknown;
  time?: unknown;
}

/** An entry's request: enough to decide whether it is this API's before reading its answer. */
export interface RecordedRequest {
  method: string;
  url: URL;
  /** The URL as recorded: `url` has lost any dot segment it had. */
  written: string;
  headers: Map<string, string>;
}

/** The request of an entry, or undefined when the entry has none a HAR entry must have. */
export function requestOf(entry: unknown): RecordedRequest | undefined {
  const request = (entry as RawEntry | null)?.request;
  if (typeof request?.method !== 'string' || typeof request.url !== 'string') return undefined;
  let url: URL;
  try {
    url = parsedUrl(request.url);
  } catch {
    return undefined;
  }
  return {
    method: request.method.toUpperCase(),
    url,
    written: request.url,
    headers: headerMap(request.headers),
  };
}

/** Header name/value pairs, lower-case names, repeated headers joined as HTTP joins them. */
function headerMap(raw: unknown): Map<string, string> {
  const headers = new Map<string, string>();
  if (!Array.isArray(raw)) return headers;
  for (const header of raw as HarNameValue[]) {
    if (typeof header?.name !== 'string' || typeof header.value !== 'string') continue;
    const name = header.name.toLowerCase();
    // HTTP/2 pseudo-headers (`:authority`) are not headers of the message.
    if (name.startsWith(':')) continue;
    const known = headers.get(name);
    headers.set(name, known === undefined ? header.value : `${known}, ${header.value}`);
  }
  return headers;
}

/** The file an entry's body was attached as (Playwright's `content: 'attach'`), when it has no text. */
export function attachedFileOf(entry: RawEntry): string | undefined {
  const content = entry.response?.content;
  return typeof content?._file === 'string' && typeof content.text !== 'string' ? content._file : undefined;
}

export type Reading =
  /** `bodyless`: the recording holds the answer's status and headers, not its body. */
  { judged: true; exchange: Exchange; bodyless: boolean } | { judged: false; reason: string; line: string };

/** How a request is named in reports: `#12 GET https://host/api/v1/walks?limit=5`. */
function entryLine(index: number, method: string, url: string): string {
  return `#${index} ${method} ${url}`;
}

/**
 * Notes the secrets an entry carries (its key headers, cookies, secret query parameters) without
 * reading the rest of it: a shard notes every entry's, so that every shard of a recording redacts
 * the same secrets the same way.
 */
export function noteSecretsOf(entry: RawEntry, request: RecordedRequest, ledger: SecretNotes): void {
  for (const [name, value] of request.headers) if (SECRET_HEADERS.has(name)) ledger.note(value);
  for (const [name, value] of headerMap(entry.response?.headers))
    if (SECRET_HEADERS.has(name)) ledger.note(value);
  shownUrlOf(request, ledger);
}

/** URLs shown lately, kept per ledger of secrets. */
const SHOWN_URLS = 256;
const shownUrls = new WeakMap<SecretNotes, Map<string, string>>();

/**
 * The URL of a request as reports show it (`shownUrl`), worked out once for the latest URLs a
 * ledger noted the secrets of: a recording asks the same URLs again and again.
 */
function shownUrlOf(request: RecordedRequest, ledger: SecretNotes): string {
  let shown = shownUrls.get(ledger);
  if (!shown) {
    shown = new Map();
    shownUrls.set(ledger, shown);
  }
  let url = shown.get(request.written);
  if (url === undefined) {
    url = shownUrl(request.written, ledger, request.url);
    if (shown.size >= SHOWN_URLS) shown.clear();
    shown.set(request.written, url);
  }
  return url;
}

/**
 * The exchange of an entry already known to be this API's, or why it cannot be judged: no
 * answer recorded (status 0, a failed or cancelled request), or no body recorded.
 */
export function readEntry(
  entry: RawEntry,
  index: number,
  request: RecordedRequest,
  ledger: SecretNotes,
  keyring: Keyring,
  attached?: Buffer,
  keptHeaders: ReadonlySet<string> = NO_HEADERS,
): Reading {
  for (const [name, value] of request.headers) if (SECRET_HEADERS.has(name)) ledger.note(value);
  const url = shownUrlOf(request, ledger);
  const response = entry.response;
  const status = response?.status;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599)
    return { judged: false, reason: 'no answer recorded', line: entryLine(index, request.method, url) };
  const headers = headerMap(response?.headers);
  for (const [name, value] of headers) if (SECRET_HEADERS.has(name)) ledger.note(value);
  const read = bodyOf(response?.content, headers, request.method, status, attached);
  const bodyless = typeof read === 'string';
  const content: Body = typeof read === 'string' ? { content: '' } : read;
  const info = requestInfo(request, url, keyring, keptHeaders);
  const shown: Record<string, string> = {};
  for (const [name, value] of headers) if (!SECRET_HEADERS.has(name)) shown[name] = value;
  const answer = answerOf(status, shown, content.content, SHARED_BODIES);
  if (!answer.contentType && typeof response?.content?.mimeType === 'string' && answer.bytes > 0) {
    // Some exporters keep the type only in `content.mimeType`.
    answer.contentType = response.content.mimeType;
    answer.mediaType = response.content.mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  }
  if (content.coded) answer.encoded = { coding: content.coded.coding, bytes: content.coded.wireBytes };
  if (bodyless) answer.unrecorded = true;
  const started = typeof entry.startedDateTime === 'string' ? Date.parse(entry.startedDateTime) : NaN;
  const exchange: Exchange = {
    seq: index,
    request: info,
    response: answer,
    durationMs: typeof entry.time === 'number' ? Math.round(entry.time) : 0,
    retries: 0,
  };
  if (!Number.isNaN(started)) exchange.startedAt = started;
  return { judged: true, exchange, bodyless };
}

/**
 * The request as reports show it. A key it carried is shown by the role of the configured key it
 * matches (`$CONFORMANCE_OTHER_CAMPAIGN_KEY`), or else by its hashed id (`key#3f9a1c0e`); other
 * credentials by their scheme alone. The rules tell the credentials from these same headers. Of
 * the other headers it keeps those the rules read (`Rule.requestHeaders`: forwarding, rewrite and
 * override headers), never a secret one: a gateway's token in a header no rule reads is never shown.
 */
function requestInfo(
  request: RecordedRequest,
  url: string,
  keyring: Keyring,
  keptHeaders: ReadonlySet<string>,
): RequestInfo {
  const headers: Record<string, string> = {};
  for (const name of shownHeadersOf(keptHeaders)) {
    const value = request.headers.get(name);
    if (value !== undefined) headers[name] = value;
  }
  const authorization = request.headers.get('authorization');
  if (authorization !== undefined) headers.Authorization = keyring.shownValue('authorization', authorization);
  const apiKey = request.headers.get('x-api-key');
  if (apiKey !== undefined) headers['x-api-key'] = keyring.shownValue('x-api-key', apiKey);
  return withCurl({ method: request.method, url, keys: [], headers });
}

/** No request header beyond those every rule may read. */
const NO_HEADERS: ReadonlySet<string> = new Set();

/** The request headers shown besides the key headers, by the headers the rules read: listed once a run. */
const shownHeaders = new WeakMap<ReadonlySet<string>, readonly string[]>();
function shownHeadersOf(keptHeaders: ReadonlySet<string>): readonly string[] {
  let names = shownHeaders.get(keptHeaders);
  if (!names) {
    names = ['accept', 'accept-encoding', 'content-type', 'origin', 'if-none-match', ...keptHeaders].filter(
      (name) => !SECRET_HEADERS.has(name),
    );
    shownHeaders.set(keptHeaders, names);
  }
  return names;
}

/** A request without its curl: the curl is written only for the few exchanges a report shows. */
type PlainRequest = Omit<RequestInfo, 'curl'>;

/** The request with its curl, written only for the few exchanges a report shows: a recording has thousands. */
function withCurl(info: PlainRequest): RequestInfo {
  let curl: string | undefined;
  return {
    method: info.method,
    url: info.url,
    keys: info.keys,
    headers: info.headers,
    ...(info.nearMisses ? { nearMisses: info.nearMisses } : {}),
    ...(info.body !== undefined ? { body: info.body } : {}),
    get curl() {
      curl ??= curlOf(info);
      return curl;
    },
  };
}

/** A recording holds the same answers again and again: each distinct body is parsed and measured once. */
const SHARED_BODIES: BodyReader = { json: sharedJsonOf, bytes: sharedBytesOf };

/** Statuses and methods whose answers carry no body at all. */
const NO_BODY_STATUSES = new Set([204, 304]);

interface Body {
  /** The decoded content: the recorded text itself when it needed no decoding. */
  content: Buffer | string;
  /**
   * Set when the recording kept the body coded and it was decoded here: the coding and the coded
   * size. A plain body's size is not counted here: `responseOf` counts it, and counting a large
   * body twice cost as much as some rules.
   */
  coded?: { coding: string; wireBytes: number };
}

/**
 * The recorded body, decoded by what its header names and its bytes show (`codings.ts`); or why
 * there is none to judge. An attached body (`content._file`) has been read into `attached`.
 */
function bodyOf(
  content: NonNullable<RawEntry['response']>['content'],
  headers: Map<string, string>,
  method: string,
  status: number,
  attached: Buffer | undefined,
): Body | string {
  const text = content?.text;
  if (typeof text !== 'string' && !attached) {
    if (method === 'HEAD' || NO_BODY_STATUSES.has(status)) return { content: '' };
    return 'no body recorded';
  }
  const coding = headers.get('content-encoding');
  if (codingsOf(coding).length === 0 && typeof text === 'string' && content?.encoding !== 'base64')
    return { content: text };
  const bytes =
    attached ??
    (content?.encoding === 'base64'
      ? Buffer.from(text as string, 'base64')
      : Buffer.from(text as string, 'latin1'));
  if (codingsOf(coding).length === 0) return { content: bytes };
  // Text kept as text under a coding is decoded text, unless its characters are the coded bytes.
  const decoded = decodeBody(bytes, coding);
  if ('unreadable' in decoded) return decoded.unreadable;
  if (!decoded.coded && typeof text === 'string' && content?.encoding !== 'base64' && !attached)
    return { content: text };
  return decoded.coded ? { content: decoded.bytes, coded: decoded.coded } : { content: decoded.bytes };
}
