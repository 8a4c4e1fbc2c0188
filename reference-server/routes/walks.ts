/**
 * The live walks endpoints (written spec §4.2, §4.3) as Express routes: authentication, then the
 * answer `../walk-answers.ts` decides (the same one the hot path, `../hot-path.ts`, serves in front
 * of the app), sent or passed to the error handler.
 */
import { type RequestHandler, Router } from 'express';
import { WALKS_PATH } from '../../spec/facts.ts';
import { type Authorizer, grantOf, requireKey } from '../auth/require-key.ts';
import { sendPrepared, type SendingPolicy } from '../envelope.ts';
import { ApiError, NO_SUCH_ENDPOINT, WALK_NOT_FOUND } from '../errors.ts';
import { steering } from '../steering.ts';
import type { BadLimit } from '../limit.ts';
import type { WalkSource } from '../repository.ts';
import { detailAnswer, listAnswer, WALK_PATH } from '../walk-answers.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

export interface WalksRouteOptions {
  repository: WalkSource;
  /** `authorizer(keyring, 'walks:read', ...)`: the same decision for the routes and the hot path. */
  authorize: Authorizer;
  /** D-LIMIT: refuse a bad `limit` (ours) or clamp it (a variant). */
  badLimit?: BadLimit;
  /** D-COMPRESSION, D-CACHE: how success bodies are sent. */
  sending?: SendingPolicy;
  /** D-SANDBOX-STEERING: whether `Prefer: code=NNN` gets that error (default false). */
  steering?: boolean;
}

export function walksRouter({
  repository,
  authorize,
  badLimit,
  sending,
  steering: steered = false,
}: WalksRouteOptions): Router {
  const router = Router({ caseSensitive: true, strict: false });
  const authenticate = requireKey(authorize);
  const pass: RequestHandler = (_req, _res, next) => next();

  router
    .route(WALKS_PATH)
    .get(authenticate, steered ? steering(NO_SUCH_ENDPOINT) : pass, (req, res, next) => {
      const answer = listAnswer(req.url, repository.campaign(grantOf(res).campaignId), badLimit);
      if ('etag' in answer) sendPrepared(req, res, answer, sending);
      else next(new ApiError(answer));
    })
    .all(methodNotAllowed);

  router
    .route(WALK_PATH)
    .get(authenticate, steered ? steering(WALK_NOT_FOUND) : pass, (req, res, next) => {
      const answer = detailAnswer(req.path, repository.campaign(grantOf(res).campaignId));
      if ('etag' in answer) sendPrepared(req, res, answer, sending);
      else next(new ApiError(answer));
    })
    .all(methodNotAllowed);

  return router;
}
