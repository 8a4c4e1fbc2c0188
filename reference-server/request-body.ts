/**
 * Request bodies: the API reads none, yet it drains each one (up to a cap) before answering. A
 * connection closed with unread request bytes is reset by the kernel, and the reset can cut off
 * the answer still in flight: a GET carrying a body with `Connection: close` would get half a walk.
 * A body over the cap is refused with 413 and the connection is closed.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { ApiError, BODY_TOO_LARGE } from './errors.ts';

/** Far above anything a read-only API should receive; the 100 KB bodies of the hostile-request tests fit. */
const MAX_DRAINED_BODY_BYTES = 1024 * 1024;

export function drainRequestBody(maxBytes = MAX_DRAINED_BODY_BYTES): RequestHandler {
  return (req, _res, next) => {
    if (!hasRequestBody(req)) return next();
    if (Number(req.headers['content-length']) > maxBytes) return refuse();
    let received = 0;
    let settled = false;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes && !settled) {
        settled = true;
        refuse();
      }
    };
    req.on('data', onData);
    req.once('end', () => {
      req.off('data', onData);
      if (settled) return;
      settled = true;
      next();
    });
    // A client that goes away mid-body gets no answer; the request log still records it.
    req.once('error', () => undefined);

    function refuse(): void {
      next(new ApiError(BODY_TOO_LARGE));
    }
  };
}

/** Node frames a request body only by these two headers (RFC 9112 §6.3). */
export function hasRequestBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
