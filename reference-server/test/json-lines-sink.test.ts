/**
 * The JSON-lines log sink gathers the lines of `FLUSH_AFTER_MS` into one write, and
 * loses none when the process exits right after logging.
 */
import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { FLUSH_AFTER_MS, jsonLines } from '../log.ts';

const LOG_MODULE = fileURLToPath(new URL('../log.ts', import.meta.url));

describe('jsonLines', () => {
  it('writes the records of one flush window as one chunk of JSON lines, in order', () => {
    const writes: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        writes.push(chunk.toString('utf8'));
        done();
      },
    });
    vi.useFakeTimers();
    const log = jsonLines(stream);
    try {
      log({ n: 1 });
      log({ n: 2, text: 'a "quoted"\nline' });
      log({ n: 3 });
      vi.advanceTimersByTime(FLUSH_AFTER_MS - 1);
      expect(writes).toEqual([]);
      vi.advanceTimersByTime(1);
    } finally {
      vi.useRealTimers();
    }
    expect(writes).toHaveLength(1);
    expect(
      writes[0]
        ?.split('\n')
        .slice(0, -1)
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([{ n: 1 }, { n: 2, text: 'a "quoted"\nline' }, { n: 3 }]);
    vi.useFakeTimers();
    try {
      log({ n: 4 });
      vi.advanceTimersByTime(FLUSH_AFTER_MS);
    } finally {
      vi.useRealTimers();
    }
    expect(writes).toEqual([writes[0], '{"n":4}\n']);
  });

  it('writes what is pending when the process exits at once', async () => {
    const script = [
      `const { jsonLines } = await import(${JSON.stringify(LOG_MODULE)});`,
      'const log = jsonLines();',
      "for (let i = 0; i < 3; i++) log({ msg: 'stopped', i });",
      'process.exit(0);',
    ].join('\n');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '--eval', script],
      { timeout: 20_000 },
    );
    expect(stdout).toBe('{"msg":"stopped","i":0}\n{"msg":"stopped","i":1}\n{"msg":"stopped","i":2}\n');
  });
});
