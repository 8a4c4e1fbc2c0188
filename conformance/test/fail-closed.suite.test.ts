/**
 * A key with no base URL is a setup mistake (a CI variable unset or misspelt), not a wish for the
 * embedded reference server: exit 2, one line naming both variables, nothing started or sent. With
 * nothing configured at all the embedded server is still checked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './harness.ts';

const KEY = 'svc_sk_live_failclosed0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'conformance-fail-closed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function expectOneLine(stderr: string, ...words: string[]): void {
  const lines = stderr.split('\n').filter((line) => line !== '' && !line.startsWith('Run with --help'));
  expect(lines, stderr).toHaveLength(1);
  for (const word of words) expect(lines[0]).toContain(word);
  expect(stderr).not.toContain(KEY);
}

describe('a key without a base URL', () => {
  it.each([
    ['empty', { CONFORMANCE_BASE_URL: '', CONFORMANCE_API_KEY: KEY }],
    ['blank', { CONFORMANCE_BASE_URL: '  ', CONFORMANCE_API_KEY: KEY }],
    ['missing', { CONFORMANCE_API_KEY: KEY }],
  ])('CONFORMANCE_BASE_URL %s: exit 2, naming both variables', async (_how, env) => {
    const run = await runCli([], env);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expectOneLine(run.stderr, 'CONFORMANCE_API_KEY is set', 'CONFORMANCE_BASE_URL is empty or missing');
  });

  it('any configured key counts, and one from --env-file too', async () => {
    const other = await runCli([], { CONFORMANCE_OTHER_CAMPAIGN_KEY: KEY });
    expect(other.status).toBe(2);
    expectOneLine(other.stderr, 'CONFORMANCE_OTHER_CAMPAIGN_KEY is set', 'CONFORMANCE_BASE_URL');
    const file = join(dir, '.env');
    writeFileSync(file, `CONFORMANCE_API_KEY=${KEY}\nCONFORMANCE_BASE_URL=\n`);
    const fromFile = await runCli(['--env-file', file], {});
    expect(fromFile.status).toBe(2);
    expectOneLine(fromFile.stderr, 'CONFORMANCE_API_KEY is set', 'CONFORMANCE_BASE_URL');
  });

  it('--list sends nothing and needs no base URL', async () => {
    const run = await runCli(['--list', '--only', 'COLLECTION-001'], { CONFORMANCE_API_KEY: KEY });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^COLLECTION-001\t/);
  });

  it('with nothing configured the embedded reference server is checked', async () => {
    const run = await runCli(['--only', 'COLLECTION-001'], { CONFORMANCE_BASE_URL: '' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/http:\/\/127\.0\.0\.1:\d+/);
  });
});
