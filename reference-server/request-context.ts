/**
 * First step of every request: the headers every answer carries (D-HEADERS, D-CACHE), a request
 * id, and the request's log record once the answer is finished. `requestContext` is the Express
 * middleware; the hot path (`hot-path.ts`) calls `beginRequest` itself, once it knows it answers.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { isoNow, type LogSink, loggablePath } from './log.ts';

/** The headers every answer carries besides its request id. */
const COMMON_HEADERS = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Cache-Control', 'private, no-cache'],
  ['Vary', 'Authorization, x-api-key, Accept-Encoding'],
] as const;

export function requestContext(log: LogSink | false): RequestHandler {
  return (req, res, next) => {
    beginRequest(req, res, log);
    next();
  };
}

/** Starts a request: its id and common headers set on `res`, its log record once it is finished. */
export function beginRequest(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  log: LogSink | false,
): void {
  const requestId = randomUUID();
  res.setHeader('X-Request-Id', requestId);
  for (const [name, value] of COMMON_HEADERS) res.setHeader(name, value);
  if (log) logWhenClosed(req, res, log, requestId);
}

function logWhenClosed(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  log: LogSink,
  requestId: string,
): void {
  const started = process.hrtime.bigint();
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
      duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
      completed: res.writableFinished,
    }),
  );
}
