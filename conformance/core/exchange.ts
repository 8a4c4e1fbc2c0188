/**
 * The exchange's vocabulary: a request as the client sends it and as reports show it, the answer,
 * and what a failed attempt was. It imports nothing of the suite but its names, so every layer can
 * speak it.
 */
import type { KeyName } from './configuration.ts';
import type { NearMiss } from './near-miss.ts';

export type Via = 'bearer' | 'x-api-key';
/** A configured key, named, sent in one of the two headers. */
export interface KeyUse {
  key: KeyName;
  via: Via;
  /** Sends this edit of the key instead (`near-miss.ts`), derived at send time, never stored. */
  nearMiss?: NearMiss;
  /**
   * The word sent before the key instead of its header's own (`Bearer` in Authorization, none in
   * x-api-key): `Token`, or `''` for the bare key. Credentials no deployment may accept.
   */
  scheme?: string;
  /** Sends the key without this leading text (the spec's key prefix): a token not shaped like a key. */
  dropPrefix?: string;
  /**
   * Sends the key out of its headers, where no deployment may read it: as a query parameter, as a
   * cookie of that name, or as the user name of Basic authentication (`via` is then unused).
   */
  placed?: KeyPlacement;
}

/** Where a key goes out of its place (`KeyUse.placed`). */
export type KeyPlacement = { in: 'query' | 'cookie'; name: string } | { in: 'basic' };

export interface RequestSpec {
  method?: string;
  /** Path below the base URL, e.g. `/api/v1/walks`. */
  path: string;
  /** Raw query string without `?`, sent exactly as written (e.g. `limit=1&limit=2`). */
  query?: string;
  auth?: KeyUse | KeyUse[];
  /** Literal headers; never secrets (use `auth` for configured keys). */
  headers?: Record<string, string>;
  /** Sends a well-formed key no deployment knows (`svc_sk_live_` + random) in this header. */
  madeUpKey?: Via;
  body?: string;
  /**
   * The same request made again (1, 2...): identical on the wire, but not the same request to
   * deduplication, so a read made after other keys' requests is sent rather than remembered.
   */
  again?: number;
  /**
   * Read off the socket (`transport/raw-answer.ts`): the answer's status and headers, and how many
   * bytes came after them, which an HTTP client drops for HEAD, 204 and 304 (`ResponseData.socket`).
   */
  offSocket?: true;
}

/** The request as reports show it: keys by name, never by value. */
export interface RequestInfo {
  method: string;
  url: string;
  /** Names of the configured keys sent, e.g. `CONFORMANCE_API_KEY`. */
  keys: KeyName[];
  /** Near misses of configured keys sent instead of the keys themselves (their values are derived, never stored). */
  nearMisses?: { key: KeyName; nearMiss: NearMiss }[];
  headers: Record<string, string>;
  body?: string;
  curl: string;
}

export interface ResponseData {
  status: number;
  headers: Record<string, string>;
  /** `Content-Type` as sent; `mediaType` is its lower-case essence (`application/json`). */
  contentType?: string;
  mediaType?: string;
  /** The content, decoded when it came gzip-encoded (see `encoded`). */
  body: string;
  bytes: number;
  /** Set when the answer came content-coded and the client decoded it: the coding and its size on the wire. */
  encoded?: { coding: string; bytes: number };
  /** Parsed JSON when the body is JSON, whatever the content type says. */
  json?: unknown;
  /** Why the body is not JSON (empty bodies have neither `json` nor `jsonError`). */
  jsonError?: string;
  /** A recording holds the answer's status and headers, not its body: `body` is empty for want of it. */
  unrecorded?: true;
  /**
   * A request sent `offSocket`: the bytes that came after the headers, or why the answer could not
   * be read off the socket (a proxy between, which the client goes through as usual).
   */
  socket?: { afterHeaders: number } | { unread: string };
}

export type FailureKind =
  /** No connection within the connect timeout (a host that drops packets). */
  | 'connect'
  | 'timeout'
  | 'refused'
  | 'dns'
  | 'reset'
  /** The status and headers arrived, the body did not arrive whole (`NetworkFailure.cut`). */
  | 'cut'
  | 'protocol'
  | 'too-large'
  /** The answer declares a `Content-Encoding` its body does not decode from (or one no client knows). */
  | 'undecodable'
  | 'network'
  /** The TLS handshake failed: an untrusted or expired certificate, a name mismatch, a client certificate required. */
  | 'tls'
  /** The configured proxy cannot be reached, or refused to carry the request. */
  | 'proxy'
  /** Not sent: the request budget is spent. */
  | 'budget'
  /** Not sent: the target stopped answering, so the suite stopped asking. */
  | 'gave-up'
  /** Not sent, or not answered in time: the run reached `--max-duration`. */
  | 'past-deadline';

/** The flag that caps an answer's size: a `too-large` failure that names it was cut at the cap. */
export const RESPONSE_CAP_FLAG = '--max-response-bytes';

/** An answer cut off at the size cap: legal perhaps, but too large to judge (not the deployment's fault). */
export function overCap(error: NetworkFailure | undefined): boolean {
  return error?.kind === 'too-large' && error.message.includes(RESPONSE_CAP_FLAG);
}

export interface NetworkFailure {
  kind: FailureKind;
  message: string;
  /** The error code behind it (`ECONNRESET`, `CERT_HAS_EXPIRED`...), when one was given. */
  code?: string;
  /** A `cut` answer: what it declared, and what arrived. */
  cut?: CutAnswer;
}

/** An answer that began and did not arrive whole. */
export interface CutAnswer {
  status: number;
  /** Its Content-Length, when it declared one. */
  declared?: number;
  /** It came in chunks (Transfer-Encoding: chunked). */
  chunked?: true;
  /** Body bytes that arrived before it ended. */
  arrived: number;
}

/**
 * One attempt of a request. A request tried again (client.ts's retry policy) leaves one exchange per
 * attempt in `client.exchanges`, in the order sent: the HAR, the JSON report and the coverage count
 * them all. Every attempt but the last carries `retriedAs`, the `seq` of the attempt that replaced it;
 * rules judge only final attempts (`isFinal`), and `send()` resolves to the final one.
 */
export interface Exchange {
  seq: number;
  /** When it was sent (ms since the epoch): the HAR's `startedDateTime`. */
  startedAt?: number;
  request: RequestInfo;
  response?: ResponseData;
  error?: NetworkFailure;
  durationMs: number;
  /** Attempts of the same request before this one (0 for a first attempt). */
  retries: number;
  /** Set on a superseded attempt: the `seq` of the attempt sent again in its place. */
  retriedAs?: number;
  /** Why it was tried again (`429`, `503`, `reset`, `local`), on a superseded attempt. */
  retriedFor?: RetryReason;
}

/** What makes the client try a request again (`transport/retry.ts`). */
export type RetryReason = '429' | '503' | 'reset' | 'local';

/** Whether an exchange is the one a request ended with: the attempt rules judge. */
export function isFinal(exchange: Exchange): boolean {
  return exchange.retriedAs === undefined;
}
