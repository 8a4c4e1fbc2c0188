/**
 * The last line of defence: every text the suite writes (console, reports, files) passes through a
 * redactor that replaces each configured key value with its variable name — and every piece of
 * one, since reports shorten echoed bodies (a target that echoes the key would otherwise have its
 * first characters printed up to the cut).
 *
 * A key is replaced where it stands as a whole token, so a short key such as `x` leaves every
 * other letter x alone and the output stays byte for byte what it was. A key long enough to be a
 * secret (`SECRET_LENGTH`) cannot occur in ordinary text by chance, so it is replaced wherever it
 * occurs, even glued to other characters (`%3D` + key in a doubly encoded URL): never printed.
 */
import { KEY_PREFIX } from '../spec/facts.ts';
import { nearMissOf } from './near-miss.ts';
import type { KeyName } from './types.ts';

export type Redactor = (text: string) => string;

/** A piece of a key this long is found and widened to all it shares with the key. */
const PIECE = 10;
/** A piece is a secret when it carries at least this many characters after the public prefix. */
const SECRET_CHARS = 4;
/** Keys at least this long are secrets wherever they occur; shorter ones only as whole tokens. */
const SECRET_LENGTH = 16;
/** Characters that continue a token: a key next to one of them is part of a longer word. */
const WORD = '[\\p{L}\\p{N}_.-]';

/** Keys by name, and the other secrets of a run (gateway header values, proxy credentials) by theirs. */
export function redactorFor(...keySets: Partial<Record<KeyName | string, string>>[]): Redactor {
  const configured = keySets
    .flatMap((keys) => Object.entries(keys))
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '');
  // The near miss that shares no run with its key (AUTH-014 sends it; a target may echo it) is the
  // key in all but letter case: as secret as the key. The other near misses share its runs.
  const named = configured.flatMap(([name, value]): [string, string][] => {
    const flipped = value.length >= SECRET_LENGTH ? nearMissOf(value, 'case-flipped') : undefined;
    return flipped
      ? [
          [name, value],
          [name, flipped],
        ]
      : [[name, value]];
  });
  const forms = named
    .flatMap(([name, value]) => variantsOf(value).map((variant) => [variant, `$${name}`, value] as const))
    .sort((a, b) => b[0].length - a[0].length);
  const secrets = forms.filter(([, , value]) => value.length >= SECRET_LENGTH);
  const tokens = forms
    .filter(([, , value]) => value.length < SECRET_LENGTH)
    .map(([form, name]) => [new RegExp(`(?<!${WORD})${escapeRegExp(form)}(?!${WORD})`, 'gu'), name] as const);
  const pieces = named.filter(([, value]) => value.length >= SECRET_LENGTH);
  const filter = pieceFilter(pieces.map(([, value]) => value));
  return (text) => {
    let out = text;
    for (const [secret, name] of secrets) out = out.replaceAll(secret, name);
    for (const [token, name] of tokens) out = out.replace(token, () => name);
    // Searching each piece of each key costs one pass over the text per piece (seconds on the
    // megabytes of a --har file); one pass first tells whether any piece is there at all.
    if (!filter.holdsAny(out)) return out;
    for (const [name, value] of pieces) out = redactPieces(out, value, `$${name}`);
    return out;
  };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The forms a key can take on its way into a text: as is, URL-encoded, JSON-escaped. */
function variantsOf(value: string): string[] {
  return [...new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])];
}

/** The first key position whose piece `redactPieces` looks for: pieces wholly inside the public prefix are no secret. */
function firstPieceStart(key: string): number {
  const secretFrom = key.startsWith(KEY_PREFIX) ? KEY_PREFIX.length : 0;
  return Math.max(0, secretFrom - PIECE + 1);
}

/** Every piece `redactPieces` looks for, of every key. */
function piecesOf(keys: readonly string[]): Set<string> {
  const pieces = new Set<string>();
  for (const key of keys) {
    for (let start = firstPieceStart(key); start + PIECE <= key.length; start++) {
      pieces.add(key.slice(start, start + PIECE));
    }
  }
  return pieces;
}

const HASH_BASE = 31;
/** Slots of the table of pieces' hashes: a few hundred pieces leave most windows a miss. */
const FILTER_SLOTS = 1 << 16;

/**
 * Whether a text holds any piece of the keys, in one pass: a rolling hash of every `PIECE`-long
 * window of the text, looked up in a table of the pieces' hashes, and a window whose hash is
 * there compared with the pieces themselves. A text with no piece needs no piece redacted.
 */
function pieceFilter(keys: readonly string[]): { holdsAny: (text: string) => boolean } {
  const pieces = piecesOf(keys);
  if (pieces.size === 0) return { holdsAny: () => false };
  // HASH_BASE^PIECE, to take the character leaving the window out of the hash.
  let outgoing = 1;
  for (let i = 0; i < PIECE; i++) outgoing = Math.imul(outgoing, HASH_BASE);
  const hashOf = (text: string, end: number) => {
    let hash = 0;
    for (let i = end - PIECE; i < end; i++) hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(i)) | 0;
    return hash;
  };
  const table = new Uint8Array(FILTER_SLOTS);
  const slot = (hash: number) => (hash >>> 0) % FILTER_SLOTS;
  for (const piece of pieces) table[slot(hashOf(piece, PIECE))] = 1;
  const holdsAny = (text: string): boolean => {
    if (text.length < PIECE) return false;
    let hash = hashOf(text, PIECE);
    for (let end = PIECE; ; end++) {
      if (table[slot(hash)] === 1 && pieces.has(text.slice(end - PIECE, end))) return true;
      if (end === text.length) return false;
      hash =
        (Math.imul(hash, HASH_BASE) +
          text.charCodeAt(end) -
          Math.imul(text.charCodeAt(end - PIECE), outgoing)) |
        0;
    }
  };
  return { holdsAny };
}

/**
 * Replaces every run of text that is a run of the key (at least `PIECE` long, with at least
 * `SECRET_CHARS` characters beyond the public prefix), e.g. the key cut short by an excerpt.
 */
function redactPieces(text: string, key: string, name: string): string {
  const secretFrom = key.startsWith(KEY_PREFIX) ? KEY_PREFIX.length : 0;
  let out = text;
  // Pieces wholly inside the public prefix are no secret; any secret piece overlaps a later one.
  for (let start = firstPieceStart(key); start + PIECE <= key.length; start++) {
    const piece = key.slice(start, start + PIECE);
    let at = out.indexOf(piece);
    while (at !== -1) {
      // Widen the match to everything the text and the key share around it.
      let left = 0;
      while (start - left > 0 && at - left > 0 && out[at - left - 1] === key[start - left - 1]) left++;
      let right = PIECE;
      while (start + right < key.length && out[at + right] === key[start + right]) right++;
      const keyEnd = start + right;
      const secretChars = keyEnd - Math.max(start - left, secretFrom);
      if (secretChars >= SECRET_CHARS) {
        out = `${out.slice(0, at - left)}${name}${out.slice(at + right)}`;
        at = out.indexOf(piece, at - left + name.length);
      } else {
        at = out.indexOf(piece, at + 1);
      }
    }
  }
  return out;
}
