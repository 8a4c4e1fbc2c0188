/**
 * The keys a server accepts, by SHA-256 of the presented key. The lookup compares hashes, never
 * plaintext, so its timing says nothing about how close a guess came; revoked keys grant nothing
 * and get the answer of unknown ones (D-AUTH-REVOKED) unless a variant tells them apart.
 */
import { type ApiKeyRecord, hashKey } from '../../fixtures/index.ts';

export interface KeyGrant {
  /** Stable id of the key record (safe to log: not the key). */
  keyId: string;
  campaignId: string;
  scopes: ReadonlySet<string>;
}

export class Keyring {
  private readonly grants = new Map<string, KeyGrant>();
  /** Hashes of revoked keys: the same answer as unknown ones unless a variant tells them apart. */
  private readonly revoked = new Set<string>();

  constructor(keys: readonly ApiKeyRecord[]) {
    for (const key of keys) {
      if (key.revoked) {
        this.revoked.add(key.hash.toLowerCase());
        continue;
      }
      this.grants.set(key.hash.toLowerCase(), {
        keyId: key.id,
        campaignId: key.campaignId,
        scopes: new Set(key.scopes),
      });
    }
  }

  /** A grant, or whether the refused key is a revoked one; one hash either way. */
  lookup(key: string): { grant: KeyGrant; revoked?: undefined } | { grant?: undefined; revoked: boolean } {
    const hash = hashKey(key);
    const grant = this.grants.get(hash);
    return grant ? { grant } : { revoked: this.revoked.has(hash) };
  }
}
