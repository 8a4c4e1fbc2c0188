/**
 * The key roles a run knows, by their variables (`docs/contract.md`). A role says which
 * campaign a key reads, whether it holds the scopes of the live operations, and whether it is
 * still valid; every rule about keys is written against these facts, never against an endpoint.
 */
import { CREDENTIAL_KEY_NAMES, type CredentialKeyName } from '../../spec/facts.ts';

export type KeyName = CredentialKeyName;
export const KEY_NAMES: readonly KeyName[] = CREDENTIAL_KEY_NAMES;

export type Via = 'bearer' | 'x-api-key';
export const VIAS: readonly Via[] = ['bearer', 'x-api-key'];

/** The campaigns a run tells apart: the one under test, a second one, and one without records. */
export type Campaign = 'primary' | 'other' | 'empty';

export interface Role {
  key: KeyName;
  /** In words, for reports: `the primary key`. */
  name: string;
  campaign: Campaign;
  /** Holds the scope of every live operation (the no-scope key holds none of them). */
  scoped: boolean;
  /** Still works (the revoked key does not). */
  valid: boolean;
}

const ROLES: Readonly<Record<KeyName, Role>> = {
  CONFORMANCE_API_KEY: {
    key: 'CONFORMANCE_API_KEY',
    name: 'primary',
    campaign: 'primary',
    scoped: true,
    valid: true,
  },
  CONFORMANCE_NO_SCOPE_KEY: {
    key: 'CONFORMANCE_NO_SCOPE_KEY',
    name: 'no scope',
    campaign: 'primary',
    scoped: false,
    valid: true,
  },
  CONFORMANCE_OTHER_CAMPAIGN_KEY: {
    key: 'CONFORMANCE_OTHER_CAMPAIGN_KEY',
    name: 'other campaign',
    campaign: 'other',
    scoped: true,
    valid: true,
  },
  CONFORMANCE_REVOKED_KEY: {
    key: 'CONFORMANCE_REVOKED_KEY',
    name: 'revoked',
    campaign: 'primary',
    scoped: true,
    valid: false,
  },
  CONFORMANCE_EMPTY_CAMPAIGN_KEY: {
    key: 'CONFORMANCE_EMPTY_CAMPAIGN_KEY',
    name: 'empty campaign',
    campaign: 'empty',
    scoped: true,
    valid: true,
  },
};

export const PRIMARY_KEY: KeyName = 'CONFORMANCE_API_KEY';
export const NO_SCOPE_KEY: KeyName = 'CONFORMANCE_NO_SCOPE_KEY';
export const OTHER_CAMPAIGN_KEY: KeyName = 'CONFORMANCE_OTHER_CAMPAIGN_KEY';
export const REVOKED_KEY: KeyName = 'CONFORMANCE_REVOKED_KEY';
export const EMPTY_CAMPAIGN_KEY: KeyName = 'CONFORMANCE_EMPTY_CAMPAIGN_KEY';

export const roleOf = (key: KeyName): Role => ROLES[key];

/** A key that reads this campaign's records: valid and scoped. */
export const reads = (role: Role): boolean => role.valid && role.scoped;
