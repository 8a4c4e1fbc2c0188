/**
 * Ground floor: the configured keys by the role they play in a run, each sent in the header it is
 * named for. One home, so the target, the shared fetches, the pre-flight and the checks all mean
 * the same request when they say "the primary key".
 */
import type { KeyUse } from './types.ts';

/** The campaign under test, `walks:read` (`CONFORMANCE_API_KEY`), as a Bearer token. */
export const PRIMARY: KeyUse = { key: 'CONFORMANCE_API_KEY', via: 'bearer' };
/** The same key in `x-api-key`. */
export const PRIMARY_X_API_KEY: KeyUse = { key: 'CONFORMANCE_API_KEY', via: 'x-api-key' };
/** A second campaign, `walks:read`: what isolation is judged against. */
export const OTHER: KeyUse = { key: 'CONFORMANCE_OTHER_CAMPAIGN_KEY', via: 'bearer' };
/** The primary campaign's key without `walks:read`. */
export const NO_SCOPE: KeyUse = { key: 'CONFORMANCE_NO_SCOPE_KEY', via: 'bearer' };
/** A campaign with no walks. */
export const EMPTY_CAMPAIGN: KeyUse = { key: 'CONFORMANCE_EMPTY_CAMPAIGN_KEY', via: 'bearer' };
/** The primary campaign's revoked key. */
export const REVOKED: KeyUse = { key: 'CONFORMANCE_REVOKED_KEY', via: 'bearer' };
