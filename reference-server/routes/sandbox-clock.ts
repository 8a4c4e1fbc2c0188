/**
 * `GET /sandbox/clock` tells the simulated time of the canvassing day; `POST /sandbox/clock` with
 * `{"advance":"2h"}` moves it on. Only with `--clock`, outside `/api/v1` and without a key: the
 * clock is the sandbox's own, not the API's. The body is read here, before the app drains
 * request bodies unread (`../request-body.ts`).
 */
import express, { type ErrorRequestHandler, Router } from 'express';
import { durationSeconds } from '../clock/duration.ts';
import type { SandboxClock } from '../clock/sandbox-clock.ts';
import { JSON_CONTENT_TYPE, sendBytes } from '../envelope.ts';
import { ApiError, CLOCK_BODY_NOT_JSON, CLOCK_METHOD_NOT_ALLOWED, INVALID_ADVANCE } from '../errors.ts';
import { hasRequestBody } from '../request-body.ts';
import { requireHost } from '../request-context.ts';

const CLOCK_PATH = '/sandbox/clock';
/** A move is a few bytes; anything longer is not one. */
const MAX_BODY = '1kb';

export function sandboxClockRouter(clock: SandboxClock): Router {
  const router = Router({ caseSensitive: true, strict: false });
  const answer = (res: express.Response) =>
    sendBytes(
      res,
      200,
      ['Content-Type', JSON_CONTENT_TYPE],
      Buffer.from(JSON.stringify({ ok: true, data: clock.state() })),
    );
  router
    .route(CLOCK_PATH)
    .get(requireHost, (_req, res) => answer(res))
    .post(
      requireHost,
      // Any content type: `curl -d '{"advance":"2h"}'` sends form encoding's.
      express.json({ type: () => true, limit: MAX_BODY, strict: true }),
      (req, res) => {
        const body: unknown = req.body;
        const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
        if (!hasRequestBody(req) || !isObject) {
          throw new ApiError(CLOCK_BODY_NOT_JSON);
        }
        const { advance } = body as { advance?: unknown };
        const seconds = typeof advance === 'string' ? durationSeconds(advance) : undefined;
        if (seconds === undefined) throw new ApiError(INVALID_ADVANCE);
        clock.advance(seconds);
        answer(res);
      },
    )
    .all((_req, _res, next) => next(new ApiError(CLOCK_METHOD_NOT_ALLOWED)));
  router.use(CLOCK_PATH, unparsedBody);
  return router;
}

/** A body that is not JSON gets the clock's own answer; other body errors (too large) go on. */
const unparsedBody: ErrorRequestHandler = (error: { type?: string }, _req, _res, next) => {
  next(error.type === 'entity.parse.failed' ? new ApiError(CLOCK_BODY_NOT_JSON) : error);
};
