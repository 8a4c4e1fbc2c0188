/**
 * What credentials a request carried, told from its headers alone, the same way for a request the
 * suite sent (its headers as reports show them: `Bearer $CONFORMANCE_API_KEY`) and for one read from
 * a recording (the raw key, matched against the configured keys by hash, or a placeholder our own
 * `--har` wrote). Rules judge by this description, so a rule about revoked keys judges every
 * exchange that carried the revoked key, whichever source it came from.
 */
import { hash } from 'node:crypto';
import type { NearMiss } from './near-miss.ts';
import { NEAR_MISSES, nearMissLabel } from './near-miss.ts';
import type { KeyName, Via } from './roles.ts';
import { KEY_NAMES, roleOf } from './roles.ts';

export type Credential =
  /** No key header at all. */
  | { kind: 'none' }
  /** A configured key, in one header. */
  | { kind: 'key'; key: KeyName; via: Via }
  /** One edit of a configured key (`near-miss.ts`). */
  | { kind: 'near-miss'; key: KeyName; miss: NearMiss; via: Via }
  /** A well-formed key no deployment knows (made up by the suite). */
  | { kind: 'made-up'; via: Via }
  /** Credentials not shaped like a key in its header: Basic, `Token x`, a bearer token without the prefix... */
  | { kind: 'malformed'; form: string }
  /** A key the run does not know, from a recording: named by a stable hash. */
  | { kind: 'recorded'; id: string; via: Via }
  /** Both headers, each with its own credentials. */
  | { kind: 'two'; bearer: Credential; xApiKey: Credential }
  /** A recording that drops key headers (a sanitized export): whether a key was sent is unknown. */
  | { kind: 'unseen' };

/** The shell expression reports show for a made-up key (the client's, recognised here). */
const MADE_UP_KEY_SHOWN = /^\S*\$\(openssl rand -hex \d+\)$/;

export interface KeyringOptions {
  /** The configured keys by variable: raw keys in a recording are matched against their hashes. */
  keys: Partial<Record<KeyName, string>>;
  /** The prefix every key has (`svc_sk_live_`), from the spec's bearer format. */
  keyPrefix?: string;
}

/** Tokens whose reading a keyring remembers: a recording carries the same few keys again and again. */
const REMEMBERED_TOKENS = 1024;

/**
 * Tells credentials from headers. Holds only hashes of the configured keys, never the keys; the
 * tokens it read lately it remembers for the run (in memory only, as the ledger of secrets does).
 */
export class Keyring {
  private readonly byHash = new Map<string, KeyName>();
  private readonly keyPrefix: string | undefined;
  /** What each recent token was read as, by header (hashing a key costs more than the rest of reading it). */
  private readonly read = new Map<string, Credential>();
  /** What each recent value of a key header was read as, and shown as, by header. */
  private readonly byValue = {
    authorization: new Map<string, Credential>(),
    'x-api-key': new Map<string, Credential>(),
  };
  private readonly shown = {
    authorization: new Map<string, string>(),
    'x-api-key': new Map<string, string>(),
  };

  constructor(options: KeyringOptions) {
    for (const name of KEY_NAMES) {
      const value = options.keys[name];
      if (value) this.byHash.set(hashOf(value), name);
    }
    this.keyPrefix = options.keyPrefix;
  }

  /** Each configured key by the hashed id reports would give it (`key#3f9a1c0e`): which keys, never their values. */
  configuredIds(): Partial<Record<KeyName, string>> {
    return Object.fromEntries([...this.byHash].map(([hash, name]) => [name, `key#${hash.slice(0, 8)}`]));
  }

  /** The credentials of a request with these headers (names in any case). */
  credentialOf(headers: Readonly<Record<string, string>>, keysVisible = true): Credential {
    let authorization: string | undefined;
    let apiKey: string | undefined;
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      if (lower === 'authorization') authorization = value;
      else if (lower === 'x-api-key') apiKey = value;
    }
    const bearer =
      authorization === undefined
        ? undefined
        : remembered(this.byValue.authorization, authorization, () =>
            this.fromAuthorization(authorization.trim()),
          );
    const xApiKey =
      apiKey === undefined
        ? undefined
        : remembered(this.byValue['x-api-key'], apiKey, () => this.fromApiKey(apiKey.trim()));
    if (bearer && xApiKey) {
      if (bearer.kind === 'key' && xApiKey.kind === 'key' && bearer.key === xApiKey.key) return bearer;
      return { kind: 'two', bearer, xApiKey };
    }
    return bearer ?? xApiKey ?? (keysVisible ? { kind: 'none' } : { kind: 'unseen' });
  }

  private fromAuthorization(value: string): Credential {
    const token = /^Bearer\s+(\S.*)$/i.exec(value)?.[1];
    if (token === undefined) return { kind: 'malformed', form: formOf(value) };
    return this.fromToken(token, 'bearer', 'a bearer token not shaped like a key');
  }

  private fromApiKey(value: string): Credential {
    return this.fromToken(value, 'x-api-key', `x-api-key: ${formOf(value)}`);
  }

  private fromToken(token: string, via: Via, notAKey: string): Credential {
    const key = `${via} ${notAKey} ${token}`;
    let credential = this.read.get(key);
    if (!credential) {
      if (this.read.size >= REMEMBERED_TOKENS) this.read.clear();
      credential = this.readToken(token, via, notAKey);
      this.read.set(key, credential);
    }
    return credential;
  }

  private readToken(token: string, via: Via, notAKey: string): Credential {
    const nearMiss = nearMissShown(token);
    if (nearMiss) return { ...nearMiss, kind: 'near-miss', via };
    if (MADE_UP_KEY_SHOWN.test(token)) return { kind: 'made-up', via };
    if (/\s/.test(token)) return { kind: 'malformed', form: notAKey };
    if (RECORDED_KEY.test(token)) return { kind: 'recorded', id: token, via };
    if (token === REDACTED_TOKEN) return { kind: 'malformed', form: notAKey };
    const placeholder = /^\$([A-Z_]+)$/.exec(token)?.[1];
    if (placeholder && isKeyName(placeholder)) return { kind: 'key', key: placeholder, via };
    const known = this.byHash.get(hashOf(token));
    if (known) return { kind: 'key', key: known, via };
    if (this.keyPrefix !== undefined && !token.startsWith(this.keyPrefix))
      return { kind: 'malformed', form: notAKey };
    return { kind: 'recorded', id: keyIdOf(token), via };
  }

  /**
   * A key header's value as reports may show it: a configured key as its variable, another key as
   * its hashed id, anything else as its scheme alone. What was a placeholder already stays one.
   */
  shownValue(name: 'authorization' | 'x-api-key', value: string): string {
    return remembered(this.shown[name], value, () => this.newShownValue(name, value));
  }

  private newShownValue(name: 'authorization' | 'x-api-key', value: string): string {
    const trimmed = value.trim();
    const token = name === 'authorization' ? /^Bearer\s+(\S.*)$/i.exec(trimmed)?.[1] : trimmed;
    // A scheme inside x-api-key is shown like one in Authorization: the word, never what follows.
    if (token === undefined || (name === 'x-api-key' && /^[A-Za-z][A-Za-z0-9-]*\s+\S/.test(trimmed))) {
      const scheme = /^([A-Za-z][A-Za-z0-9-]*)\s+\S/.exec(trimmed)?.[1];
      return scheme ? `${scheme} ${REDACTED_TOKEN}` : REDACTED_TOKEN;
    }
    const credential = this.fromToken(token, name === 'authorization' ? 'bearer' : 'x-api-key', '');
    const shown =
      credential.kind === 'key'
        ? `$${credential.key}`
        : credential.kind === 'recorded'
          ? credential.id
          : credential.kind === 'near-miss' || credential.kind === 'made-up'
            ? token
            : REDACTED_TOKEN;
    return name === 'authorization' ? `Bearer ${shown}` : shown;
  }
}

/** What a memo of the latest values holds for `value`: remembered, or worked out now. */
function remembered<T>(memo: Map<string, T>, value: string, work: () => T): T {
  let known = memo.get(value);
  if (known === undefined) {
    if (memo.size >= REMEMBERED_TOKENS) memo.clear();
    known = work();
    memo.set(value, known);
  }
  return known;
}

/** How a recorded key this run does not know is shown: its hashed id. */
const RECORDED_KEY = /^key#[0-9a-f]{8}$/;
/** What a secret that is not a key is shown as. */
const REDACTED_TOKEN = '[redacted]';

/** A stable, short, one-way name for a key: `key#3f9a1c0e`. */
export function keyIdOf(key: string): string {
  return `key#${hashOf(key).slice(0, 8)}`;
}

function hashOf(value: string): string {
  return hash('sha256', value, 'hex');
}

const isKeyName = (name: string): name is KeyName => (KEY_NAMES as readonly string[]).includes(name);

/** `<$CONFORMANCE_API_KEY with its last character changed>` as `client.ts` shows a near miss. */
function nearMissShown(token: string): { key: KeyName; miss: NearMiss } | undefined {
  const shown = /^<(.*)>$/.exec(token)?.[1];
  if (!shown) return undefined;
  for (const key of KEY_NAMES) {
    for (const miss of NEAR_MISSES) if (nearMissLabel(key, miss) === shown) return { key, miss };
  }
  return undefined;
}

/** The scheme of an Authorization value, never its secret: `Basic`, `Token`, or `a bare value`. */
function formOf(value: string): string {
  const scheme = /^([A-Za-z][A-Za-z0-9-]*)\s+\S/.exec(value)?.[1];
  return scheme ? `${scheme} credentials` : 'a value without a scheme';
}

/** How reports name credentials: `$CONFORMANCE_API_KEY in x-api-key`, `no key`, `key#3f9a1c0e`. */
export function credentialLabel(credential: Credential): string {
  switch (credential.kind) {
    case 'none':
      return 'no key';
    case 'unseen':
      return 'no key recorded';
    case 'key':
      return `$${credential.key} in ${viaLabel(credential.via)}`;
    case 'near-miss':
      return `${nearMissLabel(credential.key, credential.miss)} in ${viaLabel(credential.via)}`;
    case 'made-up':
      return `an unknown key in ${viaLabel(credential.via)}`;
    case 'malformed':
      return credential.form;
    case 'recorded':
      return `${credential.id} in ${viaLabel(credential.via)}`;
    case 'two':
      return `${credentialLabel(credential.bearer)} and ${credentialLabel(credential.xApiKey)}`;
  }
}

const viaLabel = (via: Via) => (via === 'bearer' ? 'Authorization: Bearer' : 'x-api-key');

/** The configured key a request carried whole, when it carried exactly one. */
function keyOf(credential: Credential): KeyName | undefined {
  return credential.kind === 'key' ? credential.key : undefined;
}

/** The role of the key a request carried, when it carried one configured key whole. */
export function roleOfCredential(credential: Credential) {
  const key = keyOf(credential);
  return key ? roleOf(key) : undefined;
}
