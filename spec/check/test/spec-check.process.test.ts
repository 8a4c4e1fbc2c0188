/**
 * `npm run spec:check -- --base-ref REF`: one verdict over lint, the breaking-change gate and
 * strict conformance of the reference server. The command runs once, as a process, on a pull
 * request that renames a field; the verdict's rules and formats are checked in-process.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { LIVE_SPEC_PATH } from '../../facts.ts';
import { formatCheck, verdictOf } from '../report.ts';
import type { CheckResult, PartResult } from '../types.ts';
import { envWithoutTarget, OLD_FIELD, writeRenamedSpec } from './renamed-field.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'spec-check-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function specCheck(args: string[]) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['command-line/launch.js', 'spec/check/main.ts', ...args],
      {
        cwd: ROOT,
        env: envWithoutTarget(),
        timeout: 240_000,
      },
    );
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { status: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** A repository whose commit holds today's spec, and whose working copy renames a field. */
function pullRequestRenamingAField(): string {
  const repo = join(dir, 'repo');
  const spec = join(repo, 'spec', 'openapi.yaml');
  mkdirSync(join(repo, 'spec'), { recursive: true });
  cpSync(LIVE_SPEC_PATH, spec);
  const git = (...args: string[]) =>
    execFileSync(
      'git',
      ['-c', 'user.name=spec-check', '-c', 'user.email=spec-check@example.invalid', ...args],
      {
        cwd: repo,
        stdio: 'pipe',
      },
    );
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '--no-gpg-sign', '-m', 'base');
  writeRenamedSpec(spec);
  // One of the two breaks is accepted; the other is not.
  writeFileSync(
    join(repo, 'spec', 'accepted-changes.yaml'),
    `accepted:\n  - id: "property-removed@GET /api/v1/walks > response 200 > body data[].${OLD_FIELD}"\n    reason: Renamed in 1.1.\n    expires: "2999-12-31"\n`,
  );
  return spec;
}

describe('spec:check command', () => {
  it('judges a pull request that renames a field in three parts, each failing for its own reason', async () => {
    const spec = pullRequestRenamingAField();
    const result = await specCheck(['--base-ref', 'HEAD', '--spec', spec, '--format', 'json']);

    expect(result.status).toBe(1);
    const { data } = JSON.parse(result.stdout) as { data: CheckResult };
    expect(data).toMatchObject({ spec, baseRef: 'HEAD', verdict: 'fail', specVersion: '1.0.0-beta' });
    expect(data.parts.map((part) => [part.name, part.status])).toEqual([
      ['lint', 'fail'],
      ['diff', 'fail'],
      ['conformance', 'fail'],
    ]);
    const [lint, diff, conformance] = data.parts as [PartResult, PartResult, PartResult];
    expect(lint.details.join('\n')).toContain('oas3-valid-media-example');
    expect(diff.summary).toContain('FAIL: 1 breaking change not accepted');
    expect(Object.keys(diff.gate?.accepted ?? {})).toEqual([
      `property-removed@GET /api/v1/walks > response 200 > body data[].${OLD_FIELD}`,
    ]);
    expect(conformance.details).toContain(
      `drift GET /api/v1/walks 200 field /data/*/${OLD_FIELD}: not documented [DRIFT-001]`,
    );
  });

  it.each([
    // No --base-ref is no usage error (HEAD by default): the next problem is the one named.
    [['--format', 'html'], '--format must be one of text, markdown, json'],
    [['--base-ref', 'HEAD', '--format', 'html'], '--format must be one of text, markdown, json'],
    [['--base-ref', 'HEAD', '--bogus'], 'unknown flag --bogus'],
  ])('exits 2 with usage on %j', async (args, message) => {
    const result = await specCheck(args);

    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`spec:check: ${message}`);
    expect(result.stderr).toContain('Run with --help for the options.');
  });
});

describe('the spec:check verdict', () => {
  const part = (name: PartResult['name'], status: PartResult['status']): PartResult => ({
    name,
    status,
    summary: `${name} ${status}`,
    details: status === 'pass' ? [] : [`${name} detail`],
  });

  it('passes only when every part passes, and cannot judge when any part could not', () => {
    expect(verdictOf([part('lint', 'pass'), part('diff', 'pass'), part('conformance', 'pass')])).toBe('pass');
    expect(verdictOf([part('lint', 'pass'), part('diff', 'fail'), part('conformance', 'pass')])).toBe('fail');
    expect(verdictOf([part('lint', 'fail'), part('diff', 'error'), part('conformance', 'pass')])).toBe(
      'error',
    );
  });

  it('names the parts that did not pass, in text and Markdown', () => {
    const parts = [part('lint', 'pass'), part('diff', 'fail'), part('conformance', 'error')];
    const result: CheckResult = {
      spec: 'spec/openapi.yaml',
      specVersion: '1.1.0',
      baseRef: 'origin/main',
      verdict: verdictOf(parts),
      parts,
    };

    const text = formatCheck(result, 'text');
    expect(text).toContain('spec:check new spec spec/openapi.yaml (1.1.0) against origin/main');
    expect(text).toContain('Verdict: CANNOT JUDGE: diff, conformance');
    expect(text).toMatch(/✔ Lint +pass +lint pass/);
    expect(text).toContain('Breaking changes:\n  diff detail');

    const markdown = formatCheck(result, 'markdown');
    expect(markdown).toMatch(/^## Spec check: ⚠️ CANNOT JUDGE: diff, conformance/);
    expect(markdown).toContain('| Breaking changes | ✖ fail | diff fail |');
  });
});
