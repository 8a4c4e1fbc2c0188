/**
 * `--traffic` reads a HAR file as a stream, entry by entry: whatever the chunk size, the entries it
 * yields are exactly those `JSON.parse` finds in `log.entries`, and anything that is not HAR is
 * refused with one line naming the file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HarEnd } from '../transport/recordings/har-entries.ts';
import {
  NOT_JSON,
  notHar,
  notJsonReason,
  parseEntry,
  scanHarFile,
} from '../transport/recordings/har-entries.ts';

const dir = mkdtempSync(join(tmpdir(), 'traffic-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function write(text: string): string {
  const path = join(dir, `${++files}.har`);
  writeFileSync(path, text);
  return path;
}

/**
 * Every entry of the file, parsed, in order (numbered from 1), as `--traffic` reads them on one
 * thread (`run.ts`): the scanner's bytes, each parsed on its own.
 */
function readHarEntries(
  path: string,
  onEntry: (entry: unknown, index: number) => void,
  chunkBytes?: number,
): Promise<HarEnd> {
  let index = 0;
  return scanHarFile(
    path,
    (entries) => {
      for (const bytes of entries) {
        const entry = parseEntry(bytes);
        if (entry === NOT_JSON) throw notHar(path, notJsonReason(++index));
        onEntry(entry, ++index);
      }
    },
    chunkBytes,
  );
}

async function entriesOf(path: string, chunkBytes?: number): Promise<unknown[]> {
  const entries: unknown[] = [];
  await readHarEntries(path, (entry) => void entries.push(entry), chunkBytes);
  return entries;
}

/** Entries whose strings hold every character the scanner must step over. */
const TRICKY = [
  { request: { url: 'https://a.example/api/v1/walks?x="}]', method: 'GET' } },
  { response: { content: { text: '{"ok":true,"data":[{"name":"a \\"quoted\\" {name}"}]}' } } },
  { comment: 'back\\slash at the end\\', nested: [[{}], { '"key"': ['[', ']', '{', '}'] }] },
  { runs: ['\\"', '\\\\"\\', 'a\\\\\\"b', '\\'.repeat(7)] },
  { unicode: 'é ✓ 𝄞 \u0000 \n', number: -1.5e3, flags: [true, false, null] },
];

describe('reading HAR entries as a stream', () => {
  for (const chunkBytes of [1, 3, 17, 1024 * 1024]) {
    it(`yields exactly the entries JSON.parse finds, read ${chunkBytes} byte(s) at a time`, async () => {
      const har = {
        log: {
          version: '1.2',
          creator: { name: 'test', version: '1' },
          pages: [{ id: '{' }],
          entries: TRICKY,
        },
      };
      for (const text of [JSON.stringify(har), JSON.stringify(har, null, 2)]) {
        expect(await entriesOf(write(text), chunkBytes)).toEqual(TRICKY);
      }
    });
  }

  it('decodes malformed UTF-8 in an entry as Buffer#toString does, whatever the chunk size', async () => {
    // A lone continuation byte, a cut three-byte character, an overlong form, a surrogate's encoding.
    const bad = [[0x80], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98]];
    const entries = bad.map((bytes) =>
      Buffer.concat([Buffer.from('{"text":"a—'), Buffer.from(bytes), Buffer.from('z"}')]),
    );
    const path = join(dir, `${++files}.har`);
    writeFileSync(
      path,
      Buffer.concat([
        Buffer.from('{"log":{"entries":['),
        ...entries.flatMap((e, i) => (i ? [Buffer.from(','), e] : [e])),
        Buffer.from(']}}'),
      ]),
    );
    const expected = entries.map((e) => JSON.parse(e.toString('utf8')) as unknown);
    // Each holds a replacement character where its bad bytes were.
    for (const entry of expected) expect((entry as { text: string }).text).toMatch(/^a—\uFFFD+z$/);
    for (const chunkBytes of [1, 2, 5, 1024]) expect(await entriesOf(path, chunkBytes)).toEqual(expected);
  });

  it('reads log.version and the creator on the way', async () => {
    const header = await readHarEntries(
      write(
        JSON.stringify({ log: { version: '1.2', creator: { name: 'Firefox', version: '1' }, entries: [] } }),
      ),
      () => undefined,
    );
    expect(header).toEqual({ version: '1.2', creator: 'Firefox' });
  });

  it('ignores an entries array that is not the log’s', async () => {
    const text = JSON.stringify({ other: { entries: [{ a: 1 }] }, log: { entries: [{ b: 2 }] } });
    expect(await entriesOf(write(text), 5)).toEqual([{ b: 2 }]);
  });

  const notHar: [string, string, RegExp][] = [
    ['an empty file', '', /is not a HAR file: it is empty/],
    ['a JSON array', '[{"log":{}}]', /is not a HAR file: it does not start with a JSON object/],
    ['plain text', 'hello', /is not a HAR file: it does not start with a JSON object/],
    [
      'JSON without log.entries',
      '{"log":{"version":"1.2"}}',
      /is not a HAR file: it has no log.entries array/,
    ],
    ['log.entries that is not an array', '{"log":{"entries":{}}}', /has no log.entries array/],
    ['a file cut short before its entries', '{"log":{"version":"1', /it ends in the middle of its JSON/],
    ['brackets that do not match', '{"log":{"entries":[}]}', /its brackets do not match/],
    [
      'an entry that is not JSON, without quoting it (it may hold a key)',
      '{"log":{"entries":[{"a":1},{"key": svc_sk_live_abcdefabcdef}]}}',
      /is not a HAR file: entry 2 is not valid JSON$/,
    ],
  ];
  for (const [what, text, message] of notHar) {
    it(`refuses ${what} in one line naming the file`, async () => {
      const path = write(text);
      await expect(entriesOf(path)).rejects.toThrow(message);
      await expect(entriesOf(path)).rejects.toThrow(path);
      await expect(entriesOf(path)).rejects.not.toThrow(/svc_sk_live_/);
    });
  }

  it('reads a file cut off inside an entry up to that entry, and says it was cut', async () => {
    const path = write('{"log":{"entries":[{"a":1},{"b":');
    const entries: unknown[] = [];
    const end = await readHarEntries(path, (entry) => void entries.push(entry));
    expect(entries).toEqual([{ a: 1 }]);
    expect(end.cut).toBe(true);
  });

  it('refuses a file that does not exist, naming the error', async () => {
    await expect(entriesOf(join(dir, 'missing.har'))).rejects.toThrow(
      /--traffic .*missing\.har: no such file \(ENOENT\)$/,
    );
  });
});
