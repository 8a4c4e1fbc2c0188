/**
 * Ground layer: the configured keys by the role they play in a run, each sent in the header it is
 * named for. One home, so the target, the shared fetches, the pre-flight and the checks all mean
 * the same request when they say "the primary key". Literal types, so `PRIMARY.key` names the
 * variable exactly where a table needs every credential name.
 */
import type { KeyUse } from './exchange.ts';

/** The campaign under test, holding the scopes of the spec's operations (`CONFORMANCE_API_KEY`), as a Bearer token. */
export const PRIMARY = { key: 'CONFORMANCE_API_KEY', via: 'bearer' } as const satisfies KeyUse;
/** A second campaign, holding the same scopes: what isolation is judged against. */
export const OTHER = { key: 'CONFORMANCE_OTHER_CAMPAIGN_KEY', via: 'bearer' } as const satisfies KeyUse;
/** The primary campaign's key without the scopes the operations require. */
export const NO_SCOPE = { key: 'CONFORMANCE_NO_SCOPE_KEY', via: 'bearer' } as const satisfies KeyUse;
/** A campaign with no records in any collection. */
export const EMPTY_CAMPAIGN = {
  key: 'CONFORMANCE_EMPTY_CAMPAIGN_KEY',
  via: 'bearer',
} as const satisfies KeyUse;
/** The primary campaign's revoked key. */
export const REVOKED = { key: 'CONFORMANCE_REVOKED_KEY', via: 'bearer' } as const satisfies KeyUse;
