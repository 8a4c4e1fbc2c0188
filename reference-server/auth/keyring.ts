/**
 * The keys a server accepts, by SHA-256 of the presented key. The lookup compares hashes, never
 * plaintext, so its timing says nothing about how close a guess came; revoked keys are simply
 * absent, so they take the same path as unknown ones (D-AUTH-REVOKED).
 */
import { type ApiKeyRecord, hashKey, type Scope } from '../../fixtures/index.ts';

export interface KeyGrant {
  /** Stable id of the key record (safe to log: not the key). */
  keyId: string;
  campaignId: string;
  scopes: ReadonlySet<Scope>;
}

export class Keyring {
  private readonly grants = new Map<string, KeyGrant>();

  constructor(keys: readonly ApiKeyRecord[]) {
    for (const key of keys) {
      if (key.revoked) continue;
      this.grants.set(key.hash.toLowerCase(), {
        keyId: key.id,
        campaignId: key.campaignId,
        scopes: new Set(key.scopes),
      });
    }
  }

  grantFor(key: string): KeyGrant | undefined {
    return this.grants.get(hashKey(key));
  }
}
