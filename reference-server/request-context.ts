/**
 * First step of every request: the headers every answer carries (D-HEADERS, D-CACHE), a request
 * id, and the request's log record once the answer is finished. `requestContext` is the Express
 * middleware, which puts those headers on `res` for whatever answers later; the hot path
 * (`hot-path.ts`) calls `beginRequest` itself, once it knows it answers, and hands the lines to
 * its one `writeHead`.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { OUR_SENDING, type SendingPolicy } from './envelope.ts';
import { isoNow, type LogSink, loggablePath } from './log.ts';

/**
 * The headers every answer carries besides its request id, as name/value lines (name, value,
 * name, value, ...), the form `writeHead` takes.
 */
export type CommonHeaders = readonly string[];

/**
 * D-HEADERS, with the `Cache-Control` of D-CACHE and the `Vary` of D-COMPRESSION for how success
 * bodies are sent: ours (`COMMON_HEADERS`), or a variant's.
 */
export function commonHeaders({ gzip, validators }: SendingPolicy): CommonHeaders {
  return [
    'X-Content-Type-Options',
    'nosniff',
    'Cache-Control',
    validators ? 'private, no-cache' : 'no-store',
    'Vary',
    `Authorization, x-api-key${gzip ? ', Accept-Encoding' : ''}`,
  ];
}

export const COMMON_HEADERS: CommonHeaders = commonHeaders(OUR_SENDING);

export function requestContext(log: LogSink | false, common: CommonHeaders = COMMON_HEADERS): RequestHandler {
  return (req, res, next) => {
    const lines = beginRequest(req, res, log, common);
    for (let i = 0; i < lines.length; i += 2) res.setHeader(lines[i] as string, lines[i + 1] as string);
    next();
  };
}

/**
 * Starts a request: its id, and its log record once it is finished. Returns the headers every
 * answer carries, the request id first, as name/value lines for `writeHead` (`sendBytes`).
 */
export function beginRequest(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  log: LogSink | false,
  common: CommonHeaders = COMMON_HEADERS,
): string[] {
  const requestId = randomUUID();
  if (log) logWhenClosed(req, res, log, requestId);
  return ['X-Request-Id', requestId, ...common];
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
