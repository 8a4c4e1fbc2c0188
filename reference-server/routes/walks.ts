/**
 * The live walks endpoints (written spec §4.2, §4.3). What each answers is decided by
 * `listAnswer` and `detailAnswer`, shared by the Express routes below and the fast lane
 * (`../fast-lane.ts`), which answers the same requests ahead of Express's router.
 */
import { Router } from 'express';
import type { Keyring } from '../auth/keyring.ts';
import type { RateLimiter } from '../auth/rate-limit.ts';
import { grantOf, requireKey } from '../auth/require-key.ts';
import { type PreparedBody, sendPrepared } from '../envelope.ts';
import { ApiError, type ErrorAnswer, INVALID_LIMIT, WALK_NOT_FOUND } from '../errors.ts';
import type { CampaignWalks, WalkRepository } from '../repository.ts';
import { limitValuesOf, parseLimit } from './limit.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

export const WALKS_PATH = '/api/v1/walks';
/**
 * The detail path without a capture group: Express would percent-decode a captured id before any
 * middleware runs and answer badly encoded ids itself, ahead of authentication. The route decodes
 * the id on its own, after the key has been checked (D-AUTH-ORDER, D-ID-MALFORMED).
 */
export const WALK_PATH = /^\/api\/v1\/walks\/(?:[^/]+)\/?$/;
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
    .route(WALKS_PATH)
    .get(authenticate, (req, res, next) => {
      const answer = listAnswer(req.url, repository.campaign(grantOf(res).campaignId));
      if ('etag' in answer) sendPrepared(req, res, answer);
      else next(new ApiError(answer));
    })
    .all(methodNotAllowed);

  router
    .route(WALK_PATH)
    .get(authenticate, (req, res, next) => {
      const answer = detailAnswer(req.path, repository.campaign(grantOf(res).campaignId));
      if ('etag' in answer) sendPrepared(req, res, answer);
      else next(new ApiError(answer));
    })
    .all(methodNotAllowed);

  return router;
}

/** The list for the `limit` of a request URL, or why not. */
export function listAnswer(url: string, walks: CampaignWalks | undefined): PreparedBody | ErrorAnswer {
  const limit = parseLimit(limitValuesOf(url));
  if (limit === undefined) return INVALID_LIMIT;
  if (!walks) throw new Error('campaign of a valid key has no walks view');
  return walks.list(limit);
}

/** The detail of the walk a request path names, or `not_found`. */
export function detailAnswer(path: string, walks: CampaignWalks | undefined): PreparedBody | ErrorAnswer {
  const id = decodedId(path);
  return (id === undefined ? undefined : walks?.walk(id)) ?? WALK_NOT_FOUND;
}

function decodedId(path: string): string | undefined {
  const raw = path.slice(WALK_PREFIX.length).replace(/\/$/, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined; // invalid percent-encoding names no walk
  }
}
