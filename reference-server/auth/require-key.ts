/**
 * Authentication as middleware (D-AUTH-ORDER: key, then rate, then scope). On success the grant is
 * left in `res.locals.grant` for the route.
 */
import type { RequestHandler, Response } from 'express';
import type { Scope } from '../../fixtures/index.ts';
import { ApiError, INVALID_KEY, missingScope, RATE_LIMITED } from '../errors.ts';
import { sendError } from '../envelope.ts';
import { credentialsFrom } from './credentials.ts';
import type { KeyGrant, Keyring } from './keyring.ts';
import type { RateLimiter } from './rate-limit.ts';

export function requireKey(keyring: Keyring, scope: Scope, limiter?: RateLimiter): RequestHandler {
  const forbidden = missingScope(scope);
  return (req, res, next) => {
    const headers = req.headersDistinct;
    const credentials = credentialsFrom(headers.authorization, headers['x-api-key']);
    if (credentials.error) return next(new ApiError(credentials.error));
    const grant = keyring.grantFor(credentials.key);
    if (!grant) return next(new ApiError(INVALID_KEY));
    const wait = limiter?.take(grant.keyId);
    if (wait !== undefined) return sendError(res, RATE_LIMITED, { 'Retry-After': String(wait) });
    if (!grant.scopes.has(scope)) return next(new ApiError(forbidden));
    res.locals.grant = grant;
    next();
  };
}

export function grantOf(res: Response): KeyGrant {
  const grant = res.locals.grant as KeyGrant | undefined;
  if (!grant) throw new Error('route reached without requireKey');
  return grant;
}
