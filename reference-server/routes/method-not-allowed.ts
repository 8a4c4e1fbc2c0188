import type { RequestHandler } from 'express';
import { ApiError, METHOD_NOT_ALLOWED } from '../errors.ts';

/** D-METHOD: every method but GET and HEAD on a known path, answered before authentication. */
export const methodNotAllowed: RequestHandler = (_req, _res, next) => next(new ApiError(METHOD_NOT_ALLOWED));
