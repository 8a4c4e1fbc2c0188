/**
 * First middleware of every request: the headers every answer carries (D-HEADERS, D-CACHE), a
 * request id, and the request's log record once the answer is finished.
 */
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { type LogSink, loggablePath, logRecord } from './log.ts';

export function requestContext(log: LogSink | false): RequestHandler {
  return (req, res, next) => {
    const requestId = randomUUID();
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'private, no-cache');
    res.setHeader('Vary', 'Authorization, x-api-key');
    if (log) {
      const started = process.hrtime.bigint();
      const url = req.originalUrl ?? req.url;
      let logged = false;
      const done = () => {
        if (logged) return;
        logged = true;
        log(
          logRecord('info', 'request', {
            request_id: requestId,
            method: req.method,
            path: loggablePath(url),
            status: res.statusCode,
            duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
            completed: res.writableFinished,
          }),
        );
      };
      res.once('finish', done);
      res.once('close', done);
    }
    next();
  };
}
