/**
 * First step of every request: the headers every answer carries (D-HEADERS, D-CACHE), a request
 * id, and the request's log record once the answer is finished. The Express middleware sets the
 * headers on the response at once; the fast lane (`fast-lane.ts`) passes them to `writeHead` with
 * the rest of its answer, which spares Node a `setHeader` per header.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { isoNow, type LogSink, loggablePath } from './log.ts';

/** The headers every answer carries besides its request id, as `writeHead`'s name/value list. */
const COMMON_HEADERS = [
  'X-Content-Type-Options',
  'nosniff',
  'Cache-Control',
  'private, no-cache',
  'Vary',
  'Authorization, x-api-key, Accept-Encoding',
] as const;

export function requestContext(log: LogSink | false): RequestHandler {
  return (req, res, next) => {
    beginRequest(req, res, log);
    next();
  };
}

/** Starts a request and sets the headers every answer carries on `res`. */
export function beginRequest(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  log: LogSink | false,
): void {
  setHeaderList(res, trackRequest(req, res, log));
}

/** Sets a `writeHead`-style name/value list on `res`, for answers written with `setHeader`. */
export function setHeaderList(res: ServerResponse, headers: readonly string[]): void {
  for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i] as string, headers[i + 1] as string);
}

/**
 * Starts a request: its id, and its log record once the answer is finished. Returns the headers
 * every answer carries (request id included) for the caller to send; nothing is set on `res`.
 */
export function trackRequest(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  log: LogSink | false,
): string[] {
  const requestId = randomUUID();
  if (log) {
    const started = process.hrtime.bigint();
    const url = req.originalUrl ?? req.url ?? '';
    // A response emits `close` once, when it is finished or its connection is gone, whichever
    // comes first. The record is built in one literal (no spread, no named closure): this runs
    // on every request.
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
  return ['X-Request-Id', requestId, ...COMMON_HEADERS];
}
