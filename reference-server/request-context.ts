/**
 * First step of every request: a request id, and the headers every answer carries (D-HEADERS,
 * D-CACHE), the request id first (`openAnswer`: `sendBytes` writes them). The request log
 * (`log.ts`) names the request by the same id.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { COMMON_HEADERS, type CommonHeaders, openAnswer } from './envelope.ts';
import { ApiError, MISSING_HOST } from './errors.ts';

export function requestContext(common: CommonHeaders = COMMON_HEADERS): RequestHandler {
  return (req, res, next) => {
    req.id = randomUUID();
    openAnswer(res, ['X-Request-Id', req.id, ...common]);
    next();
  };
}

/** RFC 9112 §3.2: an HTTP/1.1 request without `Host` is refused with 400 (`MISSING_HOST`). */
export const requireHost: RequestHandler = (req, _res, next) =>
  next(lacksHost(req) ? new ApiError(MISSING_HOST) : undefined);

function lacksHost(req: IncomingMessage): boolean {
  return req.headers.host === undefined && req.httpVersion === '1.1';
}
