/**
 * Authentication (D-AUTH-ORDER: key, then rate, then scope): `authorize` decides, `requireKey` is
 * its Express middleware, which leaves the grant in `res.locals.grant` for the route and passes
 * every refusal, 429 included, to the error handler.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestHandler, Response } from 'express';
import {
  ApiError,
  type ErrorAnswer,
  INVALID_KEY,
  missingScope,
  rateLimited,
  REVOKED_KEY,
} from '../errors.ts';
import { type BothHeaders, credentialsFrom, keyHeaderLines } from './credentials.ts';
import type { KeyGrant, Keyring } from './keyring.ts';
import type { RateLimiter } from './rate-limit.ts';

type Authorization = { grant: KeyGrant; refusal?: undefined } | { grant?: undefined; refusal: ErrorAnswer };

export type Authorizer = (req: IncomingMessage) => Authorization;

export function authorizer(
  keyring: Keyring,
  scope: string | readonly string[],
  limiter?: RateLimiter,
  both: BothHeaders = 'refuse',
): Authorizer {
  const needed = typeof scope === 'string' ? [scope] : scope;
  const forbidden = missingScope(needed.join(' and '));
  return (req) => {
    const { authorization, apiKey } = keyHeaderLines(req.rawHeaders);
    const credentials = credentialsFrom(authorization, apiKey, both);
    if (credentials.error) return { refusal: credentials.error };
    const { grant, revoked } = keyring.lookup(credentials.key);
    if (!grant) return { refusal: revoked ? REVOKED_KEY : INVALID_KEY };
    const wait = limiter?.take(grant.keyId);
    if (wait !== undefined) return { refusal: rateLimited(wait) };
    if (!needed.every((one) => grant.scopes.has(one))) return { refusal: forbidden };
    return { grant };
  };
}

export function requireKey(authorize: Authorizer): RequestHandler {
  return (req, res, next) => {
    const { grant, refusal } = authorize(req);
    if (refusal) return next(new ApiError(refusal));
    res.locals.grant = grant;
    next();
  };
}

export function grantOf(res: Response): KeyGrant {
  const grant = res.locals.grant as KeyGrant | undefined;
  if (!grant) throw new Error('route reached without requireKey');
  return grant;
}
