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
import { KEY_PREFIX } from '../../spec/facts.ts';
import { nearMissOf } from './near-miss.ts';
import type { KeyName } from './configuration.ts';

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
  const named = namedSecrets(keySets);
  // Each key is replaced by a mark of private-use characters, and the marks by the variable names
  // last: a name (`$CONFORMANCE_API_KEY`) may itself hold a piece of a key (a placeholder of
  // `--profile mock`, flipped in case, holds `CONFORMANCE`), and replaced again it would grow `$$$`.
  const names = [...new Set(named.map(([name]) => `$${name}`))];
  const marks = new Map(names.map((name, index) => [name, markOf(index)]));
  const markFor = (name: string) => marks.get(`$${name}`) as string;
  const forms = named
    .flatMap(([name, value]) => variantsOf(value).map((variant) => [variant, markFor(name), value] as const))
    .sort((a, b) => b[0].length - a[0].length);
  const secrets = forms.filter(([, , value]) => value.length >= SECRET_LENGTH);
  const tokens = forms
    .filter(([, , value]) => value.length < SECRET_LENGTH)
    .map(([form, name]) => [new RegExp(`(?<!${WORD})${escapeRegExp(form)}(?!${WORD})`, 'gu'), name] as const);
  const pieces = named.filter(([, value]) => value.length >= SECRET_LENGTH);
  const pieceRuns = piecesOf(pieces.map(([, value]) => value));
  const piecesIn = runFinder(pieceRuns).allIn;
  const holdsAnything = secretFilter(
    forms.map(([form]) => form),
    pieceRuns,
  );
  const redactAll = (text: string) => {
    let out = text;
    for (const [secret, name] of secrets) out = out.replaceAll(secret, name);
    for (const [token, name] of tokens) out = out.replace(token, () => name);
    out = redactPieces(out, pieces, piecesIn, markFor);
    return out.replace(MARK, (mark) => names[(mark.codePointAt(1) as number) - MARK_BASE] ?? '');
  };
  // Most texts hold no secret at all (a --har file carries keys as their variable names): one pass
  // tells, and only a text that holds some form or piece pays a pass per form.
  return (text) => (holdsAnything(text) ? redactAll(text) : text);
}

/**
 * The configured secrets by name, each with the near miss that shares no run with its key: AUTH-014
 * sends it and a target may echo it. It is the key in all but letter case: as secret as the key.
 * The other near misses share its runs.
 */
function namedSecrets(keySets: Partial<Record<string, string>>[]): [string, string][] {
  const configured = keySets
    .flatMap((keys) => Object.entries(keys))
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '');
  return configured.flatMap(([name, value]): [string, string][] => {
    const flipped = value.length >= SECRET_LENGTH ? nearMissOf(value, 'case-flipped') : undefined;
    return flipped
      ? [
          [name, value],
          [name, flipped],
        ]
      : [[name, value]];
  });
}

/** A replaced key's mark: its index as one private-use character between two others, no key's or name's. */
const MARK_BASE = 0xe100;
const MARK = /\uE000[\uE100-\uF8FE]\uE001/gu;
const markOf = (index: number) => `\uE000${String.fromCodePoint(MARK_BASE + index)}\uE001`;

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

/**
 * Whether a text holds anything the redactor would replace: a form of a secret or a token (each
 * form at least `PIECE` long holds its own last `PIECE` characters wherever it stands, so that run
 * stands for it), a piece of a key, or a form too short for a run (searched as it is).
 */
function secretFilter(forms: readonly string[], pieces: ReadonlySet<string>): (text: string) => boolean {
  const runs = new Set(pieces);
  for (const form of forms) if (form.length >= PIECE) runs.add(form.slice(-PIECE));
  const holdsRun = runFinder(runs).holdsAny;
  const short = forms.filter((form) => form.length < PIECE);
  return (text) => holdsRun(text) || short.some((form) => text.includes(form));
}

/** Characters of the text the filter hashes at a time. */
const GRAM = 4;
/** Every `PIECE`-long run of a text holds the `GRAM` characters at some multiple of `STEP`. */
const STEP = PIECE - GRAM + 1;
/** The table of grams' hashes has 2^FILTER_BITS slots: a few hundred runs leave most grams a miss. */
const FILTER_BITS = 16;

/** A hash of the `GRAM` (4) characters from `at`. */
const gramSlot = (text: string, at: number) =>
  Math.imul(
    text.charCodeAt(at) ^
      (text.charCodeAt(at + 1) << 8) ^
      (text.charCodeAt(at + 2) << 16) ^
      (text.charCodeAt(at + 3) << 24),
    0x9e3779b1,
  ) >>>
  (32 - FILTER_BITS);

/** Where a text holds runs of a set: whether it holds any, and which it holds. */
interface RunFinder {
  holdsAny: (text: string) => boolean;
  allIn: (text: string) => Set<string>;
}

/**
 * Finds `runs` (each `PIECE` long) in a text in one pass that reads `GRAM` characters of every
 * `STEP`: any occurrence of a run holds one of its grams at a multiple of `STEP`, so the grams there
 * are looked up in a table of every gram of every run, and only where one is found are the runs that
 * could hold it compared with `runs` themselves. A text with no run needs no search.
 */
function runFinder(runs: ReadonlySet<string>): RunFinder {
  const table = new Uint8Array(1 << FILTER_BITS);
  for (const run of runs) for (let at = 0; at + GRAM <= PIECE; at++) table[gramSlot(run, at)] = 1;
  /** Calls `found` with each run met, in text order, until it returns true; true if it did. */
  const scan = (text: string, found: (run: string) => boolean): boolean => {
    if (runs.size === 0) return false;
    for (let at = 0; at + GRAM <= text.length; at += STEP) {
      if (table[gramSlot(text, at)] !== 1) continue;
      for (let start = Math.max(0, at - STEP + 1); start <= at && start + PIECE <= text.length; start++) {
        const run = text.slice(start, start + PIECE);
        if (runs.has(run) && found(run)) return true;
      }
    }
    return false;
  };
  return {
    holdsAny: (text) => scan(text, () => true),
    allIn: (text) => {
      const held = new Set<string>();
      scan(text, (run) => {
        held.add(run);
        return held.size === runs.size;
      });
      return held;
    },
  };
}

/**
 * Replaces every run of text that is a run of a key (at least `PIECE` long, with at least
 * `SECRET_CHARS` characters beyond the public prefix), e.g. the key cut short by an excerpt: key by
 * key, piece by piece, each piece where it stands in the text as the pieces before left it. Searching
 * each piece costs a pass over the text (seconds for the ~400 pieces of 5 keys on the megabytes of a
 * --har file), so one pass tells which pieces the text holds, and another after each piece replaced.
 */
function redactPieces(
  text: string,
  pieces: readonly (readonly [string, string])[],
  piecesIn: (text: string) => Set<string>,
  markFor: (name: string) => string,
): string {
  let held = piecesIn(text);
  let out = text;
  for (const [name, key] of pieces) {
    // Pieces wholly inside the public prefix are no secret; any secret piece overlaps a later one.
    for (let start = firstPieceStart(key); held.size > 0 && start + PIECE <= key.length; start++) {
      if (!held.has(key.slice(start, start + PIECE))) continue;
      const replaced = redactPiece(out, key, start, markFor(name));
      if (replaced !== out) held = piecesIn(replaced);
      out = replaced;
    }
  }
  return out;
}

/** What is written out so far: the parts in order, and their length. */
interface Written {
  parts: string[];
  length: number;
}

/**
 * Replaces each occurrence of the piece of `key` at `start`, widened to everything the text and the
 * key share around it, when it carries at least `SECRET_CHARS` characters beyond the public prefix;
 * left to right, each search starting after the last replacement. The text is read once and written
 * once (a replacement written into the whole text each time cost a copy of it per occurrence).
 */
function redactPiece(text: string, key: string, start: number, name: string): string {
  const piece = key.slice(start, start + PIECE);
  let at = text.indexOf(piece);
  if (at === -1) return text;
  const secretFrom = key.startsWith(KEY_PREFIX) ? KEY_PREFIX.length : 0;
  const written: Written = { parts: [], length: 0 };
  // `text` from `read` on follows what is written, unchanged.
  let read = 0;
  /** The character `back` places before `at` in the text as replaced so far. */
  const before = (back: number) =>
    at - back >= read ? text[at - back] : writtenChar(written, back - (at - read));
  while (at !== -1) {
    // Widen the match to everything the text and the key share around it (to the left, that may
    // reach back into what is written).
    let left = 0;
    while (
      start - left > 0 &&
      written.length + at - read - left > 0 &&
      before(left + 1) === key[start - left - 1]
    ) {
      left++;
    }
    let right = PIECE;
    while (start + right < key.length && text[at + right] === key[start + right]) right++;
    const secretChars = start + right - Math.max(start - left, secretFrom);
    if (secretChars >= SECRET_CHARS) {
      if (at - left >= read) write(written, text.slice(read, at - left));
      else takeBack(written, read - (at - left));
      write(written, name);
      read = at + right;
      at = text.indexOf(piece, read);
    } else {
      at = text.indexOf(piece, at + 1);
    }
  }
  written.parts.push(text.slice(read));
  return written.parts.join('');
}

function write(written: Written, part: string): void {
  written.parts.push(part);
  written.length += part.length;
}

/** Takes back the last `count` characters written: a match widened into them. */
function takeBack(written: Written, count: number): void {
  written.length -= count;
  for (let surplus = count; surplus > 0;) {
    const last = written.parts.pop() as string;
    if (last.length > surplus) written.parts.push(last.slice(0, last.length - surplus));
    surplus -= Math.min(surplus, last.length);
  }
}

/** The character `back` places before the end of what is written (1: the last one). */
function writtenChar(written: Written, back: number): string | undefined {
  for (let i = written.parts.length - 1; i >= 0; i--) {
    const part = written.parts[i] as string;
    if (back <= part.length) return part[part.length - back];
    back -= part.length;
  }
  return undefined;
}
