/**
 * First step of every request: the headers every answer carries (D-HEADERS, D-CACHE), a request
 * id, and the request's log record once the answer is finished. The Express middleware and the
 * fast lane (`fast-lane.ts`) both start requests here.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { type LogSink, loggablePath } from './log.ts';

export function requestContext(log: LogSink | false): RequestHandler {
  return (req, res, next) => {
    beginRequest(req, res, log);
    next();
  };
}

export function beginRequest(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  log: LogSink | false,
): void {
  const requestId = randomUUID();
  res.setHeader('X-Request-Id', requestId);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'private, no-cache');
  res.setHeader('Vary', 'Authorization, x-api-key, Accept-Encoding');
  if (!log) return;
  const started = process.hrtime.bigint();
  const url = req.originalUrl ?? req.url ?? '';
  // A response emits `close` once it is finished or its connection is gone, whichever comes first.
  // The record is built in one literal (no spread, no named closure): this runs on every request.
  res.once('close', () =>
    log({
      time: new Date().toISOString(),
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
