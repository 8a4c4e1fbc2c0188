/**
 * The one error handler (four arguments, after every route) and the trailing JSON 404. Whatever
 * went wrong, the client gets the envelope and never a stack trace; unexpected failures are logged.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { openedHeader, sendError } from './envelope.ts';
import { ApiError, answerForUnexpected, NO_SUCH_ENDPOINT } from './errors.ts';
import { type LogSink, loggablePath, logRecord } from './log.ts';
import { OUR_ANSWERS, type Remap } from './variants/answers.ts';

/** D-PATH-UNKNOWN */
export const noSuchEndpoint: RequestHandler = (_req, _res, next) => next(new ApiError(NO_SUCH_ENDPOINT));

/** `remap` gives a variant's status and code in place of ours (`variants/answers.ts`). */
export function errorHandler(log: LogSink | false, remap: Remap = OUR_ANSWERS): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const answer = remap(error instanceof ApiError ? error.answer : answerForUnexpected(error));
    if (log && answer.status >= 500) {
      log(
        logRecord('error', 'unexpected failure', {
          request_id: openedHeader(res, 'X-Request-Id'),
          path: loggablePath(req.originalUrl ?? req.url),
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        }),
      );
    }
    if (res.headersSent) {
      res.destroy(); // half an answer is worse than none
      return;
    }
    sendError(res, answer);
  };
}
