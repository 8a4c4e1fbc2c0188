/**
 * The one error handler (four arguments, after every route) and the trailing JSON 404. Whatever
 * went wrong, the client gets the envelope and never a stack trace; an unexpected failure is
 * handed to the request's log line (`res.err`), which then says what broke.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { sendError } from './envelope.ts';
import { ApiError, answerForUnexpected, NO_SUCH_ENDPOINT } from './errors.ts';
import { OUR_ANSWERS, type Remap } from './variants/answers.ts';

/** D-PATH-UNKNOWN */
export const noSuchEndpoint: RequestHandler = (_req, _res, next) => next(new ApiError(NO_SUCH_ENDPOINT));

/** `remap` gives a variant's status and code in place of ours (`variants/answers.ts`). */
export function errorHandler(remap: Remap = OUR_ANSWERS): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const answer = remap(error instanceof ApiError ? error.answer : answerForUnexpected(error));
    if (!(error instanceof ApiError) && answer.status >= 500) {
      res.err = error instanceof Error ? error : new Error(String(error));
    }
    if (res.headersSent) {
      res.destroy(); // half an answer is worse than none
      return;
    }
    sendError(res, answer);
  };
}
