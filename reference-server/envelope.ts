/**
 * The one way the API answers: precomputed envelope bytes with their headers, written with
 * `res.end` so a wrapping app can still intercept them. Success bodies carry a strong ETag;
 * `If-None-Match` with a matching tag gets 304 (D-CACHE).
 */
import { createHash, type Hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorAnswer } from './errors.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A success body encoded once, with its entity tag. */
export interface PreparedBody {
  bytes: Buffer;
  etag: string;
}

export function prepareBody(json: string): PreparedBody {
  const bytes = Buffer.from(json, 'utf8');
  return { bytes, etag: entityTag(createHash('sha256').update(bytes)) };
}

/** A strong ETag from the SHA-256 of the body's bytes (already fed to `hash`). */
export function entityTag(hash: Hash): string {
  return `"${hash.digest('base64url').slice(0, 27)}"`;
}

export function sendPrepared(req: IncomingMessage, res: ServerResponse, body: PreparedBody): void {
  res.setHeader('ETag', body.etag);
  if (matchesIfNoneMatch(req.headers['if-none-match'], body.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', body.bytes.length);
  res.end(body.bytes);
}

export function sendError(
  res: ServerResponse,
  answer: ErrorAnswer,
  extraHeaders: Record<string, string> = {},
): void {
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  for (const [name, value] of Object.entries(extraHeaders)) res.setHeader(name, value);
  res.removeHeader('ETag');
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', answer.body.length);
  res.end(answer.body);
}

/** RFC 9110 §13.1.2: weak comparison, a list of tags, or `*`. */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if (tag === etag || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}
