/**
 * The two live endpoints answered ahead of Express. Express's per-request set-up (prototype swaps
 * on `req` and `res`, a final handler, router dispatch) costs more CPU than writing a 100 KB list
 * to the socket: measured with `npm run bench`, about 100 µs a request on the benchmark machine,
 * where bare node:http needs 20 µs. Partners poll these two endpoints; everything else is rare.
 *
 * The lane takes only what it can answer exactly as the Express routes would: `GET` or `HEAD`,
 * no request body, and a path that is exactly `/api/v1/walks` or `/api/v1/walks/{id}` (one
 * trailing slash allowed). Anything else returns `false` untouched and goes on to Express. What
 * it answers comes from the very functions the routes use (request context, `authorizer`,
 * `listAnswer`/`detailAnswer`, `sendPrepared`, the error handler), and `test/fast-lane.test.ts`
 * holds both paths to identical answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import { authorizer, refusalHeaders } from './auth/require-key.ts';
import { sendError, sendPrepared } from './envelope.ts';
import { ApiError } from './errors.ts';
import type { LogSink } from './log.ts';
import { setHeaderList, trackRequest } from './request-context.ts';
import { detailAnswer, listAnswer, WALK_PATH, WALKS_PATH, type WalksRouteOptions } from './routes/walks.ts';

/** Answers the request and returns true, or returns false having touched nothing. */
export type FastLane = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface FastLaneOptions extends WalksRouteOptions {
  log: LogSink | false;
  /** The app's error handler: error answers go through it, as they do from the routes. */
  onError: ErrorRequestHandler;
}

export function walksFastLane({ repository, keyring, limiter, log, onError }: FastLaneOptions): FastLane {
  const authorize = authorizer(keyring, 'walks:read', limiter);
  const fail = (error: unknown, req: IncomingMessage, res: ServerResponse) =>
    (onError as unknown as (e: unknown, q: IncomingMessage, s: ServerResponse, n: () => void) => void)(
      error,
      req,
      res,
      () => undefined,
    );

  return (req, res) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || hasBody(req)) return false;
    const url = req.url ?? '';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const isList = path === WALKS_PATH || path === `${WALKS_PATH}/`;
    if (!isList && !WALK_PATH.test(path)) return false;

    const headers = trackRequest(req, res, log);
    // Success answers send `headers` with `writeHead`; error answers go through the error
    // handler, which writes with `setHeader`, so those set them on `res` first.
    try {
      const { grant, refusal, retryAfter } = authorize(req);
      if (refusal) {
        setHeaderList(res, headers);
        if (retryAfter !== undefined) sendError(res, refusal, refusalHeaders(retryAfter));
        else fail(new ApiError(refusal), req, res);
        return true;
      }
      const walks = repository.campaign(grant.campaignId);
      const answer = isList ? listAnswer(url, walks) : detailAnswer(path, walks);
      if ('etag' in answer) sendPrepared(req, res, answer, headers);
      else {
        setHeaderList(res, headers);
        fail(new ApiError(answer), req, res);
      }
    } catch (error) {
      if (!res.headersSent) setHeaderList(res, headers);
      fail(error, req, res);
    }
    return true;
  };
}

/** Node frames a request body only by these two headers (RFC 9112 §6.3); see `request-body.ts`. */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
