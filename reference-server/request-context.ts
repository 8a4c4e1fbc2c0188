/**
 * First step of every request: the headers every answer carries (D-HEADERS, D-CACHE), a request
 * id, and the request's log record once the answer is finished. `requestContext` is the Express
 * middleware; the hot path (`hot-path.ts`) calls `beginRequest` itself, once it knows it answers.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { isoNow, type LogSink, loggablePath } from './log.ts';

/** Name/value pairs of the headers every answer carries besides its request id. */
export type CommonHeaders = readonly (readonly [string, string])[];

/** Ours (D-HEADERS, D-CACHE, D-COMPRESSION). */
export const COMMON_HEADERS: CommonHeaders = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Cache-Control', 'private, no-cache'],
  ['Vary', 'Authorization, x-api-key, Accept-Encoding'],
];

export function requestContext(log: LogSink | false, common: CommonHeaders = COMMON_HEADERS): RequestHandler {
  return (req, res, next) => {
    beginRequest(req, res, log, common);
    next();
  };
}

/** Starts a request: its id and common headers set on `res`, its log record once it is finished. */
export function beginRequest(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  log: LogSink | false,
  common: CommonHeaders = COMMON_HEADERS,
): void {
  const requestId = randomUUID();
  res.setHeader('X-Request-Id', requestId);
  for (const [name, value] of common) res.setHeader(name, value);
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
