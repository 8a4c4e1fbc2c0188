/** The live walks endpoints (written spec §4.2, §4.3). */
import { Router } from 'express';
import type { Keyring } from '../auth/keyring.ts';
import type { RateLimiter } from '../auth/rate-limit.ts';
import { grantOf, requireKey } from '../auth/require-key.ts';
import { sendPrepared } from '../envelope.ts';
import { ApiError, INVALID_LIMIT, WALK_NOT_FOUND } from '../errors.ts';
import type { WalkRepository } from '../repository.ts';
import { limitValuesOf, parseLimit } from './limit.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

/**
 * The detail path without a capture group: Express would percent-decode a captured id before any
 * middleware runs and answer badly encoded ids itself, ahead of authentication. The route decodes
 * the id on its own, after the key has been checked (D-AUTH-ORDER, D-ID-MALFORMED).
 */
const WALK_PATH = /^\/api\/v1\/walks\/(?:[^/]+)\/?$/;
const WALK_PREFIX = '/api/v1/walks/';

export interface WalksRouteOptions {
  repository: WalkRepository;
  keyring: Keyring;
  limiter?: RateLimiter;
}

export function walksRouter({ repository, keyring, limiter }: WalksRouteOptions): Router {
  const router = Router({ caseSensitive: true, strict: false });
  const authenticate = requireKey(keyring, 'walks:read', limiter);

  router
    .route('/api/v1/walks')
    .get(authenticate, (req, res, next) => {
      const limit = parseLimit(limitValuesOf(req.url));
      if (limit === undefined) return next(new ApiError(INVALID_LIMIT));
      const walks = repository.campaign(grantOf(res).campaignId);
      if (!walks) return next(new Error('campaign of a valid key has no walks view'));
      sendPrepared(req, res, walks.list(limit));
    })
    .all(methodNotAllowed);

  router
    .route(WALK_PATH)
    .get(authenticate, (req, res, next) => {
      const id = decodedId(req.path);
      const body = id === undefined ? undefined : repository.campaign(grantOf(res).campaignId)?.walk(id);
      if (!body) return next(new ApiError(WALK_NOT_FOUND));
      sendPrepared(req, res, body);
    })
    .all(methodNotAllowed);

  return router;
}

function decodedId(path: string): string | undefined {
  const raw = path.slice(WALK_PREFIX.length).replace(/\/$/, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined; // invalid percent-encoding names no walk
  }
}
