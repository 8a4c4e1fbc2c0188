/**
 * `npm run spec:written-facts` on a clone with no written spec beside it: one line saying it skipped,
 * exit 0, and the committed facts left as they are.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FACTS = join(ROOT, 'spec', 'written-spec-facts.json');
const empty = mkdtempSync(join(tmpdir(), 'no-written-spec-'));

afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe('npm run spec:written-facts', () => {
  it('skips in one line (exit 0) where the written spec is absent, leaving the committed facts', async () => {
    const before = readFileSync(FACTS, 'utf8');
    const ran = await promisify(execFile)(
      'npm',
      ['run', '--silent', 'spec:written-facts', '--', '--from', empty],
      { cwd: ROOT },
    );
    expect(ran.stdout.trim().split('\n')).toEqual([
      `spec:written-facts: skipped, no written spec in ${empty}; spec/written-spec-facts.json stays as committed.`,
    ]);
    expect(ran.stderr).toBe('');
    expect(readFileSync(FACTS, 'utf8')).toBe(before);
  });
});
