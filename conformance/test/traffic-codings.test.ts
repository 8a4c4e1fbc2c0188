/**
 * Recorded bodies are decoded by what their Content-Encoding names and what their bytes show: gzip
 * by its magic number, zlib by its header, raw deflate and brotli (no magic) when they decode
 * whole; bytes a recorder kept decoded under the header are taken as they are. Never by a guess
 * from the first character: a brotli stream of more than 64 KiB starts with `[`.
 */
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeBody, isGzip } from '../transport/recordings/codings.ts';

/** A list answer larger than 64 KiB: its brotli stream's first byte is `[` (0x5b). */
const LARGE = JSON.stringify({
  ok: true,
  data: Array.from({ length: 2000 }, (_, i) => ({ id: `walk-${i}`, name: `Walk ${i} of the north side` })),
  meta: { count: 2000 },
});
const SMALL = JSON.stringify({ ok: true, data: [], meta: { count: 0 } });

const text = (decoded: ReturnType<typeof decodeBody>) =>
  'bytes' in decoded ? decoded.bytes.toString('utf8') : `unreadable: ${decoded.unreadable}`;

describe('decoding a recorded body', () => {
  it('decodes a brotli stream that starts with "[" (it looks like JSON, and is not)', () => {
    const coded = brotliCompressSync(Buffer.from(LARGE));
    expect(String.fromCharCode(coded[0] as number)).toBe('[');
    const decoded = decodeBody(coded, 'br');
    expect(text(decoded)).toBe(LARGE);
    expect('coded' in decoded && decoded.coded).toEqual({ coding: 'br', wireBytes: coded.length });
  });

  const codings: [string, (b: Buffer) => Buffer][] = [
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
    ['deflate', deflateRawSync],
    ['br', brotliCompressSync],
  ];
  for (const [name, code] of codings) {
    it(`${name} (${code.name}): decodes the coded bytes, and takes bytes already decoded as they are`, () => {
      for (const body of [SMALL, LARGE]) {
        expect(text(decodeBody(code(Buffer.from(body)), name))).toBe(body);
        const kept = decodeBody(Buffer.from(body), name);
        expect(text(kept)).toBe(body);
        expect('coded' in kept && kept.coded).toBeFalsy();
      }
    });
  }

  it('undoes several codings, last applied first', () => {
    const twice = gzipSync(brotliCompressSync(Buffer.from(LARGE)));
    expect(text(decodeBody(twice, 'br, gzip'))).toBe(LARGE);
  });

  it('names a coding it cannot undo, and a body too large once decoded', () => {
    expect(text(decodeBody(Buffer.from('x'), 'zstd'))).toBe(
      'unreadable: a body coded zstd, which this reader cannot decode',
    );
    const bomb = gzipSync(Buffer.alloc(65 * 1024 * 1024, 0x20));
    expect(text(decodeBody(bomb, 'gzip'))).toMatch(/^unreadable: a body larger than \d+ bytes once decoded$/);
  });

  it('tells gzip by its magic number alone', () => {
    expect(isGzip(gzipSync(Buffer.from('{}')))).toBe(true);
    expect(isGzip(Buffer.from('{}'))).toBe(false);
  });
});
