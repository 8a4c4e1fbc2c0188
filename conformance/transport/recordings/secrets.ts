/**
 * Recorded traffic carries other people's secrets: production keys in `Authorization` and
 * `x-api-key`, session cookies, a key pasted into a query string. None of them may reach any output.
 * Every secret value met is noted in a ledger; headers that carry one are left out of what the
 * reports show; request lines have secret query values replaced; and every text the run writes
 * passes the ledger's redactor, so an answer that echoes a key is shown without it.
 */
import { KEY_PREFIX } from '../../../spec/facts.ts';
import { hasDotSegment } from '../../core/dot-segments.ts';
import type { Redactor } from '../../core/redact.ts';

/** Request and response headers whose values are secrets, lower case. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'cookie',
  'set-cookie',
]);

/** Query parameters whose values are secrets by their name (`api_key`, `token`, `sig`...). */
const SECRET_PARAM = /key|token|secret|auth|pass|sig|session|cookie|credential|code/i;
/** Anything shaped like a key of this API, wherever it stands. */
const KEY_SHAPED = new RegExp(`${KEY_PREFIX}[A-Za-z0-9._~+/=%-]{4,}`, 'g');
const REDACTED = '[redacted]';
/** Shorter values are not looked for in texts: they would redact ordinary words. */
const MIN_SECRET = 6;
/** Distinct secrets remembered; key-shaped ones beyond are still caught by their shape. */
const MAX_SECRETS = 10_000;

/** Where the secrets an entry holds are noted as it is read. */
export interface SecretNotes {
  note(value: string): void;
}

export class SecretLedger implements SecretNotes {
  private readonly values = new Set<string>();
  /** Values noted already, as given: a recording repeats the same key header in every entry. */
  private readonly noted = new Set<string>();

  /**
   * Notes a secret value (and its pieces: a `Bearer` token, the values of a cookie). What stands in
   * for a key (`$CONFORMANCE_API_KEY`, `key#3f9a1c0e`, as the suite's own recordings carry them) is
   * no secret.
   */
  note(value: string): void {
    if (this.noted.has(value)) return;
    if (this.noted.size < MAX_SECRETS) this.noted.add(value);
    for (const piece of piecesOf(value)) {
      if (piece.length >= MIN_SECRET && this.values.size < MAX_SECRETS && !STAND_IN.test(piece))
        this.values.add(piece);
    }
  }

  /** Replaces every noted secret (as is, URL-encoded, JSON-escaped) and anything key-shaped. */
  redactor(): Redactor {
    return this.replacing(() => REDACTED);
  }

  /**
   * Replaces each noted secret by a token of its own (`[redacted:3]`) and anything key-shaped: what
   * a shard writes. Two shards of one recording note the same secrets (each notes every entry's),
   * so a text reads the same in both, and texts that differed still differ; the merged run's output
   * turns the tokens into `[redacted]` (`withoutSecretTokens`), as the whole recording's would read.
   */
  tokenizer(): Redactor {
    return this.replacing((n) => `[redacted:${n}]`);
  }

  private replacing(replacement: (n: number) => string): Redactor {
    const forms = [...this.values]
      .flatMap((v) => [v, encodeURIComponent(v), JSON.stringify(v).slice(1, -1)])
      .sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
    const unique = [...new Set(forms)];
    // Every secret is at least MIN_SECRET long: a text none of whose MIN_SECRET-long pieces starts
    // one holds none, which a set tells faster than looking for thousands of secrets one by one.
    const starts = new Set(unique.map((form) => form.slice(0, MIN_SECRET)));
    const mayHold = (text: string) => {
      if (unique.length < 16) return unique.length > 0;
      for (let i = 0; i + MIN_SECRET <= text.length; i++)
        if (starts.has(text.slice(i, i + MIN_SECRET))) return true;
      return false;
    };
    return (text) => {
      let out = text;
      if (mayHold(out))
        unique.forEach((form, n) => {
          if (out.includes(form)) out = out.replaceAll(form, replacement(n));
        });
      return out.includes(KEY_PREFIX) ? out.replace(KEY_SHAPED, `${KEY_PREFIX}${REDACTED}`) : out;
    };
  }
}

/** What stands in for a key in a recording, and is no secret: `$CONFORMANCE_API_KEY`, `Bearer key#3f9a1c0e`. */
const STAND_IN =
  /^(?:[A-Za-z-]+\s+)?(?:\$[A-Z][A-Z0-9_]*|key#[0-9a-f]{8}|<[^<>]*>|\[redacted\]|\S*\$\(openssl rand -hex \d+\))$/;

/** A shard's tokens of secrets (`SecretLedger.tokenizer`) as the merged run's output shows them. */
export const withoutSecretTokens: Redactor = (text) =>
  text.includes('[redacted:') ? text.replace(/\[redacted:\d+\]/g, REDACTED) : text;

/**
 * A value with every string in it passed through `redact` (the keys and values of Maps and Sets,
 * the members of objects and arrays): what a shard writes of its state passes the redactor as
 * every report's text does.
 */
export function redactedValue(redact: Redactor): (value: unknown) => unknown {
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return redact(value);
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(walk);
    if (value instanceof Map) return new Map([...value].map(([k, v]) => [walk(k), walk(v)]));
    if (value instanceof Set) return new Set([...value].map(walk));
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
  };
  return walk;
}

/** `Bearer abc` → the whole value and `abc`; `a=1; b=2` → the values of the cookie too. */
function piecesOf(value: string): string[] {
  const trimmed = value.trim();
  const pieces = [trimmed];
  const scheme = /^[A-Za-z-]+\s+(.+)$/.exec(trimmed);
  if (scheme?.[1]) pieces.push(scheme[1].trim());
  for (const pair of trimmed.split(/;\s*/)) {
    const at = pair.indexOf('=');
    if (at > 0) pieces.push(pair.slice(at + 1).trim());
  }
  return pieces;
}

/**
 * The request's URL as reports may show it: no user information, no fragment, the value of every
 * query parameter named like a secret (or shaped like a key) replaced, the rest byte for byte.
 */
export function shownUrl(raw: string, ledger: SecretNotes, parsed?: URL): string {
  // A URL parsed already is read, never changed: one with user information is parsed afresh.
  const url = parsed && !parsed.username && !parsed.password ? parsed : new URL(raw);
  if (url.username || url.password) {
    ledger.note(decodeURIComponent(url.password || url.username));
    url.username = '';
    url.password = '';
  }
  const query = url.search.slice(1);
  // `new URL` removes dot segments; a request that sent them asked another path (AUTH-015), and is
  // shown as it went on the wire, so that it matches no documented operation.
  const written = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(raw)?.[1] ?? '';
  const path = hasDotSegment(written) ? written : url.pathname;
  const base = `${url.origin}${path}`.replace(KEY_SHAPED, `${KEY_PREFIX}${REDACTED}`);
  if (query === '') return base;
  const parts = query.split('&').map((part) => {
    const at = part.indexOf('=');
    const name = at === -1 ? part : part.slice(0, at);
    const value = at === -1 ? '' : part.slice(at + 1);
    if (value !== '' && (SECRET_PARAM.test(safeDecode(name)) || safeDecode(value).includes(KEY_PREFIX))) {
      ledger.note(safeDecode(value));
      ledger.note(value);
      return `${name}=${REDACTED}`;
    }
    return part;
  });
  return `${base}?${parts.join('&')}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}
