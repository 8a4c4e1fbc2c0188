/**
 * First step of every request: the headers every answer carries (D-HEADERS, D-CACHE), a request
 * id, and the request's log record once the answer is finished. `requestContext` is the Express
 * middleware; the hot path (`hot-path.ts`) calls `beginRequest` itself, once it knows it answers.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { COMMON_HEADERS, type CommonHeaders, openAnswer } from './envelope.ts';
import { ApiError, MISSING_HOST } from './errors.ts';
import { isoNow, type LogSink, loggablePath } from './log.ts';

export function requestContext(log: LogSink | false, common: CommonHeaders = COMMON_HEADERS): RequestHandler {
  return (req, res, next) => {
    beginRequest(req, res, log, common);
    next();
  };
}

/** RFC 9112 §3.2: an HTTP/1.1 request without `Host` is refused with 400 (`MISSING_HOST`). */
export const requireHost: RequestHandler = (req, _res, next) =>
  next(lacksHost(req) ? new ApiError(MISSING_HOST) : undefined);

export function lacksHost(req: IncomingMessage): boolean {
  return req.headers.host === undefined && req.httpVersion === '1.1';
}

/**
 * Starts a request: its id, its log record once it is finished, and the headers every answer to
 * it carries, the request id first (`openAnswer`: `sendBytes` writes them).
 */
export function beginRequest(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  log: LogSink | false,
  common: CommonHeaders = COMMON_HEADERS,
): void {
  const requestId = randomUUID();
  if (log) logWhenClosed(req, res, log, requestId);
  openAnswer(res, ['X-Request-Id', requestId, ...common]);
}

function logWhenClosed(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  log: LogSink,
  requestId: string,
): void {
  const started = performance.now();
  const url = req.originalUrl ?? req.url ?? '';
  // A response emits `close` once, when it is finished or its connection is gone, whichever
  // comes first. The record is built in one literal: this runs on every request.
  res.on('close', () =>
    log({
      time: isoNow(),
      level: 'info',
      msg: 'request',
      request_id: requestId,
      method: req.method,
      path: loggablePath(url),
      status: res.statusCode,
      duration_ms: performance.now() - started,
      completed: res.writableFinished,
    }),
  );
}
