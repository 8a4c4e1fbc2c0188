import { describe, expect, it } from 'vitest';
import { bodyIdOf, sharedBytesOf, sharedJsonOf } from '../core/body-memo.ts';
import type { ResponseData } from '../core/exchange.ts';

const answer = (body: string): ResponseData => ({ status: 200, headers: {}, body, bytes: body.length });

describe('the JSON of a recorded body, shared among answers with the same text', () => {
  // Each entry of a recording gives its body as a string of its own: copies made apart.
  const copy = (text: string) => Buffer.from(text).toString('utf8');

  it('keeps a text parsed from its second answer on: later answers share that value', () => {
    const text = JSON.stringify({ ok: true, data: [{ id: 'a', counts: { visited: 1 } }] });
    const first = sharedJsonOf(answer(text));
    const second = sharedJsonOf(answer(copy(text)));
    const third = sharedJsonOf(answer(copy(text)));
    expect(Object.isFrozen(first)).toBe(false);
    expect(third).toBe(second);
    expect(second).toEqual(first);
    const other = text.replace('"a"', '"b"');
    sharedJsonOf(answer(other));
    expect(sharedJsonOf(answer(copy(other)))).not.toBe(second);
    expect(sharedJsonOf(answer(copy(other)))).toEqual({
      ok: true,
      data: [{ id: 'b', counts: { visited: 1 } }],
    });
  });

  it('freezes the shared value to its last member, so no rule can change what later answers hold', () => {
    const text = '{"ok":true,"data":{"stops":[{"n":1}]}}';
    sharedJsonOf(answer(text));
    const json = sharedJsonOf(answer(copy(text))) as { data: { stops: { n: number }[] } };
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
