import { describe, expect, it } from 'vitest';
import { bodyIdOf, sharedBytesOf, sharedJsonOf } from '../core/body-memo.ts';
import type { ResponseData } from '../core/types.ts';

const answer = (body: string): ResponseData => ({ status: 200, headers: {}, body, bytes: body.length });

describe('the JSON of a recorded body, shared among answers with the same text', () => {
  it('parses a text once: equal texts share one value, other texts get their own', () => {
    const text = JSON.stringify({ ok: true, data: [{ id: 'a', counts: { visited: 1 } }] });
    const first = sharedJsonOf(answer(text));
    // A copy of the text made apart, as each entry of a recording gives its own string.
    const again = sharedJsonOf(answer(Buffer.from(text).toString('utf8')));
    const other = sharedJsonOf(answer(text.replace('"a"', '"b"')));
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect(other).toEqual({ ok: true, data: [{ id: 'b', counts: { visited: 1 } }] });
  });

  it('freezes the shared value to its last member, so no rule can change what later answers hold', () => {
    const json = sharedJsonOf(answer('{"ok":true,"data":{"stops":[{"n":1}]}}')) as {
      data: { stops: { n: number }[] };
    };
    expect(Object.isFrozen(json)).toBe(true);
    expect(Object.isFrozen(json.data.stops[0])).toBe(true);
    expect(() => json.data.stops.push({ n: 2 })).toThrow(TypeError);
  });

  it('counts the size of a text in UTF-8, as sent', () => {
    const text = '{"name":"Elm St — Precinct 4"}';
    expect(sharedBytesOf(answer(text))).toBe(Buffer.byteLength(text));
    expect(sharedBytesOf(answer(`${text} `))).toBe(text.length + 3);
  });

  it('throws for a body that is not JSON, as JSON.parse does, and knows the answer by its body', () => {
    const response = answer('<html>');
    expect(() => sharedJsonOf(response)).toThrow(SyntaxError);
    expect(bodyIdOf(response)).toBe(bodyIdOf(answer('<html>')));
  });
});
