/**
 * The near misses of a key (AUTH-014) are each one edit away from it and never the key itself; the
 * echo rule (AUTH-017) finds any 12-character run of a key body, and nothing shorter.
 */
import { describe, expect, it } from 'vitest';
import { KEY_PREFIX } from '../../spec/facts.ts';
import { echoes, ECHO_RUN } from '../run/echoes.ts';
import { NEAR_MISSES, nearMissLabel, nearMissOf } from '../core/near-miss.ts';

const KEY = `${KEY_PREFIX}a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTz`;

describe('near misses of a key', () => {
  it('are six distinct values, none of them the key', () => {
    const values = NEAR_MISSES.map((miss) => nearMissOf(KEY, miss));
    expect(values.every((v) => v !== undefined && v !== KEY)).toBe(true);
    expect(new Set(values).size).toBe(NEAR_MISSES.length);
  });

  it('are each the edit they are named for', () => {
    const body = KEY.slice(KEY_PREFIX.length);
    expect(nearMissOf(KEY, 'last-changed')).toBe(`${KEY.slice(0, -1)}a`);
    expect(nearMissOf(KEY, 'dropped')).toBe(KEY.slice(0, -1));
    expect(nearMissOf(KEY, 'appended')).toBe(`${KEY}a`);
    expect(nearMissOf(KEY, 'bare-prefix')).toBe(KEY_PREFIX);
    expect(nearMissOf(KEY, 'case-flipped')).toBe(
      `${KEY_PREFIX}${body.replace(/[a-z]/gi, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))}`,
    );
    const middle = nearMissOf(KEY, 'middle-changed') as string;
    expect(middle).toHaveLength(KEY.length);
    expect([...middle].filter((c, i) => c !== KEY[i])).toHaveLength(1);
  });

  it('skip an edit that would leave the key unchanged (no letter to flip)', () => {
    expect(nearMissOf(`${KEY_PREFIX}0123456789012345`, 'case-flipped')).toBeUndefined();
  });

  it('are labelled by the variable and the edit, never by value', () => {
    expect(nearMissLabel('CONFORMANCE_API_KEY', 'dropped')).toBe(
      '$CONFORMANCE_API_KEY with its last character dropped',
    );
  });
});

describe('the echo rule', () => {
  const body = KEY.slice(KEY_PREFIX.length);

  it(`finds any ${ECHO_RUN}-character run of the body, wherever it starts`, () => {
    for (let at = 0; at + ECHO_RUN <= body.length; at++) {
      expect(echoes(`{"debug":"${body.slice(at, at + ECHO_RUN)}"}`, body), `run at ${at}`).toBe(true);
    }
  });

  it('does not take a shorter run, or the public prefix, for an echo', () => {
    expect(echoes(`{"debug":"${body.slice(3, 3 + ECHO_RUN - 1)}"}`, body)).toBe(false);
    expect(echoes(`keys look like ${KEY_PREFIX}<body>`, body)).toBe(false);
  });
});
