/**
 * The redactor reads a text once to tell whether it holds anything secret at all, and returns a text
 * that holds nothing as it is. That one pass samples the text, so each form a secret can take (as
 * is, URL-encoded, JSON-escaped, its letter case flipped, a short key as a whole token) is placed
 * here at every offset of a long text, at its very end and alone: redacted wherever it stands.
 */
import { describe, expect, it } from 'vitest';
import { KEY_PREFIX } from '../../spec/facts.ts';
import { nearMissOf } from '../core/near-miss.ts';
import { redactorFor } from '../core/redact.ts';

/** Characters that change when URL-encoded (`+ / = é`, a space) or JSON-escaped (`" \` and U+0001). */
const KEY = `${KEY_PREFIX}Tq+8/ZmR=Lp é"x\\Wd\u0001Kv4Hs9Nc`;
/**
 * A gateway header's value: no public prefix, and a character that encodes at least every third one,
 * so no run of its encoded forms is a piece of the value itself.
 */
const HEADER_VALUE = 'p"Q+r/S\\t=U"v w\\X+y/Z"a=B\\c d';
/** Keys shorter than a secret: one shorter than the pieces the filter samples, one a little longer. */
const SHORTEST = 'a+b';
const SHORT = 'k3y/Q+Wx=Z';
const NAMES = {
  CONFORMANCE_API_KEY: KEY,
  CONFORMANCE_HEADER_VALUE: HEADER_VALUE,
  CONFORMANCE_NO_SCOPE_KEY: SHORTEST,
  CONFORMANCE_REVOKED_KEY: SHORT,
};
const redact = redactorFor(NAMES);

/** A --har body's worth of ordinary text, without any form or piece of the keys. */
const FILLER = '{"id":"wk_fedcba","name":"Elm Street","stops":[1,2,3],"at":"2025-10-04T17:30:00Z"},\n'.repeat(
  400,
);
/** Every offset modulo any sampling step up to this: the form starts at each of them. */
const OFFSETS = 24;

const formsOf = (value: string) => [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)];
const flipped = (value: string) => nearMissOf(value, 'case-flipped') as string;
/** The 10-character runs of a text. */
const runsOf = (text: string) => Array.from({ length: text.length - 9 }, (_, at) => text.slice(at, at + 10));

/**
 * `form` alone, and at each offset from the start and from the end of a long text (the last
 * characters of a text are sampled apart), with what redaction must make of it.
 */
function placements(form: string, name: string): [string, string][] {
  const cases: [string, string][] = [[form, name]];
  for (let offset = 0; offset < OFFSETS; offset++) {
    const [head, tail] = [FILLER.slice(0, offset), FILLER.slice(offset)];
    cases.push([`${head}${form}${tail}`, `${head}${name}${tail}`], [`${tail}${form}`, `${tail}${name}`]);
  }
  return cases;
}

describe('redaction of a secret wherever it stands in a long text', () => {
  it('has forms that differ from the value, so each is a case of its own', () => {
    for (const value of [KEY, flipped(KEY), HEADER_VALUE, flipped(HEADER_VALUE)]) {
      expect(new Set(formsOf(value)).size).toBe(3);
    }
    const pieces = new Set([...runsOf(HEADER_VALUE), ...runsOf(flipped(HEADER_VALUE))]);
    const encoded = [HEADER_VALUE, flipped(HEADER_VALUE)].flatMap((value) => formsOf(value).slice(1));
    expect(encoded.flatMap(runsOf).filter((run) => pieces.has(run))).toEqual([]);
    expect(new Set(formsOf(SHORT)).size).toBe(2);
    expect(SHORTEST.length).toBeLessThan(SHORT.length);
    expect(SHORT.length).toBeLessThan(16);
  });

  it.each([
    ['the key', KEY, '$CONFORMANCE_API_KEY'],
    ['the key with its letter case flipped', flipped(KEY), '$CONFORMANCE_API_KEY'],
    ['a header value', HEADER_VALUE, '$CONFORMANCE_HEADER_VALUE'],
    ['a header value with its letter case flipped', flipped(HEADER_VALUE), '$CONFORMANCE_HEADER_VALUE'],
  ])('replaces %s as is, URL-encoded and JSON-escaped at every offset', (_label, value, name) => {
    for (const form of formsOf(value)) {
      for (const [text, expected] of placements(form, name)) {
        expect(redact(text)).toBe(expected);
      }
    }
  });

  it.each([
    ['a key shorter than the pieces sampled', SHORTEST, '$CONFORMANCE_NO_SCOPE_KEY'],
    ['a key longer than a piece but shorter than a secret', SHORT, '$CONFORMANCE_REVOKED_KEY'],
  ])('replaces %s as a whole token, as is and URL-encoded, at every offset', (_label, value, name) => {
    for (const form of formsOf(value)) {
      for (const [text, expected] of placements(` ${form} `, ` ${name} `)) {
        expect(redact(text)).toBe(expected);
      }
    }
  });

  it('replaces a piece of the key cut short at every offset', () => {
    const piece = KEY.slice(KEY_PREFIX.length, KEY_PREFIX.length + 10);
    for (const [text, expected] of placements(`"${piece}…"`, '"$CONFORMANCE_API_KEY…"')) {
      expect(redact(text)).toBe(expected);
    }
  });

  it('leaves the long text, and the short keys glued to a word, as they were', () => {
    const glued = `${FILLER}xa+b ${SHORT}9 ${encodeURIComponent(SHORT)}_`;
    expect(redact(FILLER)).toBe(FILLER);
    expect(redact(glued)).toBe(glued);
  });
});
