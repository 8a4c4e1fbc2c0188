/**
 * The live walks endpoints (written spec §4.2, §4.3): authentication, then the list for the
 * request's `limit` or the walk its path names, sent or passed to the error handler.
 */
import { type RequestHandler, Router } from 'express';
import { WALK_PATH_TEMPLATE, WALKS_PATH } from '../../spec/facts.ts';
import { type Authorizer, grantOf, requireKey } from '../auth/require-key.ts';
import { type PreparedBody, sendPrepared, type SendingPolicy } from '../envelope.ts';
import {
  ApiError,
  type ErrorAnswer,
  INVALID_LIMIT,
  MALFORMED_WALK_ID,
  NO_SUCH_ENDPOINT,
  WALK_NOT_FOUND,
} from '../errors.ts';
import { type BadLimit, clampLimit, limitValuesOf, parseLimit } from '../limit.ts';
import { type CampaignWalks, UUID_SHAPE, type WalkSource } from '../repository.ts';
import { steering } from '../steering.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

export interface WalksRouteOptions {
  /** The walks served: a repository, or the one of the clock's instant. */
  repository: WalkSource;
  /** `authorizer(keyring, 'walks:read', ...)`. */
  authorize: Authorizer;
  /** D-LIMIT: refuse a bad `limit` (ours) or clamp it (a variant). */
  badLimit?: BadLimit;
  /** D-COMPRESSION, D-CACHE: how success bodies are sent. */
  sending?: SendingPolicy;
  /** D-SANDBOX-STEERING: whether `Prefer: code=NNN` gets that error (default false). */
  steering?: boolean;
}

/** What comes before the id in the detail path: `/api/v1/walks/`. */
const WALK_PREFIX = WALK_PATH_TEMPLATE.slice(0, WALK_PATH_TEMPLATE.indexOf('{'));
/**
 * The detail path without a capture group: Express would percent-decode a captured id before any
 * middleware runs and answer badly encoded ids itself, ahead of authentication. The route decodes
 * the id on its own, after the key has been checked (D-AUTH-ORDER, D-ID-MALFORMED).
 */
const WALK_PATH = new RegExp(`^${WALK_PREFIX.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?:[^/]+)\\/?$`);

export function walksRouter({
  repository,
  authorize,
  badLimit = 'refuse',
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

/** The list for the `limit` of a request URL, or why not. */
function listAnswer(
  url: string,
  walks: CampaignWalks | undefined,
  badLimit: BadLimit,
): PreparedBody | ErrorAnswer {
  const values = limitValuesOf(url);
  const limit = parseLimit(values) ?? (badLimit === 'clamp' ? clampLimit(values) : undefined);
  if (limit === undefined) return INVALID_LIMIT;
  if (!walks) throw new Error('campaign of a valid key has no walks view');
  return walks.list(limit);
}

/** The detail of the walk a request path names, or `not_found`. */
function detailAnswer(path: string, walks: CampaignWalks | undefined): PreparedBody | ErrorAnswer {
  const id = decodedId(path);
  if (id === undefined || !UUID_SHAPE.test(id)) return MALFORMED_WALK_ID;
  return walks?.walk(id) ?? WALK_NOT_FOUND;
}

function decodedId(path: string): string | undefined {
  const raw = path.slice(WALK_PREFIX.length).replace(/\/$/, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined; // invalid percent-encoding names no walk
  }
}
