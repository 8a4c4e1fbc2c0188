/**
 * The one way the API answers: precomputed bytes with their headers, in one `res.writeHead` and
 * one `res.end` (`sendBytes`). Nothing calls `res.setHeader`: the headers every answer carries are
 * recorded for the response when its request begins (`openAnswer`, called by
 * `request-context.ts`) and written with the answer's own. Success bodies carry a strong ETag;
 * `If-None-Match` with a matching tag gets 304 (D-CACHE). A client asking for gzip gets the body's gzip form, compressed once and kept
 * (D-COMPRESSION, `content-coding.ts`).
 */
import { createHash, type Hash } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { type EncodedBody, gzipEncoded, prefersGzip } from './content-coding.ts';
import type { ErrorAnswer } from './errors.ts';
import { isTruncated } from './turbulence.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A success body encoded once, with its entity tag, and its gzip form once first asked for. */
export interface PreparedBody extends EncodedBody {
  /** Not yet made: undefined; made, or found not worth making: an `EncodedBody` or null. */
  gzip?: EncodedBody | null;
}

export function prepareBody(json: string): PreparedBody {
  const bytes = Buffer.from(json, 'utf8');
  return { bytes, etag: entityTag(createHash('sha256').update(bytes)) };
}

/** A strong ETag from the SHA-256 of the body's bytes (already fed to `hash`). */
export function entityTag(hash: Hash): string {
  return `"${hash.digest('base64url').slice(0, 27)}"`;
}

/** Sends a success body, or 304 with no body when `If-None-Match` holds its tag. */
export function sendPrepared(
  req: IncomingMessage,
  res: ServerResponse,
  body: PreparedBody,
  { gzip: mayGzip, validators }: SendingPolicy = OUR_SENDING,
): void {
  const gzip = mayGzip && prefersGzip(req.headers['accept-encoding']) ? gzipOf(body) : undefined;
  const sent = gzip ?? body;
  // Either coding's tag names the same content, so a client holding either one is up to date.
  if (validators && matchesIfNoneMatch(req.headers['if-none-match'], body.etag, body.gzip?.etag)) {
    sendBytes(res, 304, ['ETag', sent.etag], undefined);
    return;
  }
  const headers = validators
    ? ['ETag', sent.etag, 'Content-Type', JSON_CONTENT_TYPE]
    : ['Content-Type', JSON_CONTENT_TYPE];
  if (gzip) headers.push('Content-Encoding', 'gzip');
  sendBytes(res, 200, headers, sent.bytes);
}

/** How success bodies are sent: D-COMPRESSION (gzip when asked) and D-CACHE (ETag and 304). */
export interface SendingPolicy {
  gzip: boolean;
  validators: boolean;
}

const OUR_SENDING: SendingPolicy = Object.freeze({ gzip: true, validators: true });

/**
 * The headers every answer carries besides its request id, as name/value lines (name, value,
 * name, value, ...), the form `writeHead` takes.
 */
export type CommonHeaders = readonly string[];

/**
 * D-HEADERS, with the `Cache-Control` of D-CACHE and the `Vary` of D-COMPRESSION for how success
 * bodies are sent: ours (`COMMON_HEADERS`), or a variant's.
 */
export function commonHeaders({ gzip, validators }: SendingPolicy): CommonHeaders {
  return [
    'X-Content-Type-Options',
    'nosniff',
    'Cache-Control',
    validators ? 'private, no-cache' : 'no-store',
    'Vary',
    `Authorization, x-api-key${gzip ? ', Accept-Encoding' : ''}`,
  ];
}

export const COMMON_HEADERS: CommonHeaders = commonHeaders(OUR_SENDING);

function gzipOf(body: PreparedBody): EncodedBody | undefined {
  if (body.gzip === undefined) body.gzip = gzipEncoded(body) ?? null;
  return body.gzip ?? undefined;
}

/** Sends an error answer: its status, its own headers (`Allow`, `Retry-After`, ...) and envelope. */
export function sendError(res: ServerResponse, answer: ErrorAnswer): void {
  const headers: string[] = [];
  for (const name in answer.headers) headers.push(name, answer.headers[name] as string);
  sendBytes(res, answer.status, [...headers, 'Content-Type', JSON_CONTENT_TYPE], answer.body);
}

/** Headers every answer to a request carries, as name/value lines, recorded by `openAnswer`. */
const openedAnswers = new WeakMap<ServerResponse, string[]>();

/**
 * Records the headers every answer to this response carries (name, value, name, value, ...), in
 * an array that is this response's own: `sendBytes` adds the answer's headers to it and writes it.
 */
export function openAnswer(res: ServerResponse, lines: string[]): void {
  openedAnswers.set(res, lines);
}

/**
 * The one place headers are written: one `writeHead` with the status, the headers recorded by
 * `openAnswer`, the answer's own (a name/value list) and the length, then the body. A 304 has no
 * body and no length (RFC 9110 §15.4.5).
 */
export function sendBytes(
  res: ServerResponse,
  status: number,
  own: readonly string[],
  body: Buffer | undefined,
): void {
  // The recorded lines are this response's alone and it answers once: added to, not copied.
  const headers = openedAnswers.get(res) ?? [];
  for (const line of own) headers.push(line);
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  headers.push('Content-Length', String(body.length));
  res.writeHead(status, headers);
  if (isTruncated(res) && body.length > 1) {
    // A `truncated` fault: the length promised, half the bytes sent, the connection cut.
    res.write(body.subarray(0, body.length >> 1), () => res.destroy());
    return;
  }
  res.end(body);
}

/**
 * The one exception to `sendBytes`: the bytes of an error answer for a socket Node hands over
 * before any request exists (a `CONNECT`, a request it cannot parse). The same envelope and own
 * headers, the common headers of an answer that nothing may store, and the connection closed.
 */
export function answerForSocket(answer: ErrorAnswer): Buffer {
  const lines = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`];
  const headers = [
    ...Object.entries(answer.headers).flat(),
    'Content-Type',
    JSON_CONTENT_TYPE,
    'Content-Length',
    String(answer.body.length),
    ...UNSTORED_HEADERS,
    'Connection',
    'close',
  ];
  for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), answer.body]);
}

const UNSTORED_HEADERS = commonHeaders({ gzip: false, validators: false });

/** RFC 9110 §13.1.2: weak comparison, a list of tags, or `*`. */
function matchesIfNoneMatch(
  header: string | undefined,
  etag: string,
  otherEtag: string | undefined,
): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  for (const candidate of header.split(',')) {
    let tag = candidate.trim();
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (tag === etag || tag === otherEtag) return true;
  }
  return false;
}
