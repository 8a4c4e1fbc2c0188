/**
 * The one way the API answers: precomputed bytes with their headers, in one `res.writeHead` and
 * one `res.end`. Success bodies carry a strong ETag; `If-None-Match` with a matching tag gets 304
 * (D-CACHE). A client asking for gzip gets the body's gzip form, compressed once and kept
 * (D-COMPRESSION, `content-coding.ts`).
 */
import { createHash, type Hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
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

/**
 * Sends a success body, or 304 when `If-None-Match` holds its tag. `headers` starts with the
 * headers every answer carries when they are not on `res` already (the hot path's; Express's
 * requests have them set by `request-context.ts`); the body's own are added to it, and one
 * `writeHead` writes them all.
 */
export function sendPrepared(
  req: IncomingMessage,
  res: ServerResponse,
  body: PreparedBody,
  { gzip: mayGzip, validators }: SendingPolicy = OUR_SENDING,
  headers: string[] = [],
): void {
  const gzip = mayGzip && prefersGzip(req.headers['accept-encoding']) ? gzipOf(body) : undefined;
  const sent = gzip ?? body;
  // Either coding's tag names the same content, so a client holding either one is up to date.
  if (validators && matchesIfNoneMatch(req.headers['if-none-match'], body.etag, body.gzip?.etag)) {
    headers.push('ETag', sent.etag);
    res.writeHead(304, headers);
    res.end();
    return;
  }
  if (validators) headers.push('ETag', sent.etag);
  headers.push('Content-Type', JSON_CONTENT_TYPE);
  if (gzip) headers.push('Content-Encoding', 'gzip');
  sendBytes(res, 200, headers, sent.bytes);
}

/** How success bodies are sent: D-COMPRESSION (gzip when asked) and D-CACHE (ETag and 304). */
export interface SendingPolicy {
  gzip: boolean;
  validators: boolean;
}

export const OUR_SENDING: SendingPolicy = Object.freeze({ gzip: true, validators: true });

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

/**
 * The one place an answer's own headers are written: one `writeHead` with its status, headers
 * (a name/value list) and length, then the body.
 */
export function sendBytes(res: ServerResponse, status: number, headers: string[], body: Buffer): void {
  headers.push('Content-Length', String(body.length));
  res.writeHead(status, headers);
  if (isTruncated(res) && body.length > 1) {
    // A `truncated` fault: the length promised, half the bytes sent, the connection cut.
    res.write(body.subarray(0, body.length >> 1), () => res.destroy());
    return;
  }
  res.end(body);
}

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
