/**
 * Redaction of keys a hostile target echoes back in pieces: reports shorten bodies (at 60, 160 and
 * 500 characters), so an echoed key can reach a report cut short. Every piece that carries a
 * secret is replaced; the public prefix and ordinary text are left alone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactorFor } from '../core/redact.ts';

const KEY = 'svc_sk_live_Q7wErT9yUi0pAs2dFg4hJk6lZx8cVb1nM3qW5eR7tY';
const OTHER = 'svc_sk_live_hG5fD3sA1pO9iU7yT5rE3wQ1zX9cV7bN5mL3kJ1hG';
const redact = redactorFor({ CONFORMANCE_API_KEY: KEY, CONFORMANCE_OTHER_CAMPAIGN_KEY: OTHER });
const BODY = KEY.slice('svc_sk_live_'.length);

describe('redacting pieces of keys', () => {
  it.each([
    [
      'a key cut after four secret characters',
      `it starts "####${KEY.slice(0, 16)}"`,
      'it starts "####$CONFORMANCE_API_KEY"',
    ],
    ['a key cut at the end of an excerpt', `…${KEY.slice(0, 30)}…`, '…$CONFORMANCE_API_KEY…'],
    ['the end of a key', `x${KEY.slice(20)} y`, 'x$CONFORMANCE_API_KEY y'],
    ['the secret part alone', `key=${BODY}&z`, 'key=$CONFORMANCE_API_KEY&z'],
    ['ten characters from the middle', `[${BODY.slice(10, 20)}]`, '[$CONFORMANCE_API_KEY]'],
    [
      'two keys side by side',
      `${KEY.slice(0, 20)}${OTHER.slice(15)}`,
      '$CONFORMANCE_API_KEY$CONFORMANCE_OTHER_CAMPAIGN_KEY',
    ],
  ])('replaces %s', (_label, text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it.each([
    ['the public prefix', 'send a key shaped svc_sk_live_<body>'],
    ['the made-up key of reports', 'x-api-key: svc_sk_live_$(openssl rand -hex 24)'],
    ['the prefix and three secret characters', `${KEY.slice(0, 15)}!`],
    ['nine characters from the middle', `(${BODY.slice(10, 19)})`],
    ['ordinary text', 'GET /api/v1/walks?limit=200 answered 200 (application/json)'],
  ])('leaves %s alone', (_label, text) => {
    expect(redact(text)).toBe(text);
  });

  it('leaves no ten-character run of a key in any text a piece of it was cut into', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.nat({ max: KEY.length - 10 }),
        fc.integer({ min: 10, max: KEY.length }),
        fc.string({ maxLength: 40 }),
        (before, from, length, after) => {
          const piece = KEY.slice(from, from + length);
          fc.pre(piece.length >= 10 && from + piece.length > 'svc_sk_live_'.length + 3);
          const out = redact(`${before}${piece}${after}`);
          for (let i = 0; i + 10 <= BODY.length; i++) {
            if (out.includes(BODY.slice(i, i + 10))) return false;
          }
          return true;
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
