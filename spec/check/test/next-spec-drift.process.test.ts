/**
 * `npm run conformance -- --spec PATH --strict` judges a deployment against a spec version other
 * than the bundled one: against a next version that renames a field, today's reference
 * server fails strict drift, and the report names the field on both sides.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { LIVE_SPEC_PATH } from '../../facts.ts';
import { envWithoutTarget, NEW_FIELD, OLD_FIELD, writeRenamedSpec } from './renamed-field.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'next-spec-drift-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Finding {
  kind: string;
  where: string;
  message: string;
  check: string;
}
interface SuiteReport {
  spec: { path: string; version: string; sha256: string };
  drift: { findings: Finding[] };
  results: { id: string; status: string }[];
}

/** The conformance CLI as a process, embedded reference server, strict, with a JSON report. */
async function conformanceAgainst(spec: string, name: string) {
  const json = join(dir, `${name}.json`);
  const args = [
    'command-line/launch.js',
    'conformance/main.ts',
    '--',
    '--spec',
    spec,
    '--strict',
    '--reporter',
    'json',
    '--output',
    json,
  ];
  let status = 0;
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, args, {
      cwd: ROOT,
      env: envWithoutTarget(),
      timeout: 120_000,
    }));
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    status = failed.code;
    stdout = `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
  }
  const report = JSON.parse(readFileSync(json, 'utf8')) as SuiteReport;
  return { status, stdout, report };
}

describe('conformance --spec against the next spec version', () => {
  it('passes the reference server against a copy of today’s spec, and records which spec', async () => {
    const today = join(dir, 'today.yaml');
    copyFileSync(LIVE_SPEC_PATH, today);
    const { status, report } = await conformanceAgainst(today, 'today');

    expect(status).toBe(0);
    expect(report.spec).toMatchObject({ path: today, version: '1.0.0-beta' });
    expect(report.drift.findings).toEqual([]);
  });

  it(`fails strict drift when the next version renames ${OLD_FIELD} to ${NEW_FIELD}, naming the field`, async () => {
    const next = join(dir, 'next.yaml');
    writeRenamedSpec(next);
    const { status, stdout, report } = await conformanceAgainst(next, 'next');

    expect(status).toBe(1);
    expect(report.spec.path).toBe(next);
    expect(report.spec.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(report.drift.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'field',
          where: `/data/*/${OLD_FIELD}`,
          message: 'not documented',
          check: 'DRIFT-001',
        }),
        expect.objectContaining({ where: `/data/*/${NEW_FIELD}`, message: 'required, missing' }),
      ]),
    );
    expect(report.results.find((result) => result.id === 'DRIFT-001')?.status).toBe('fail');
    expect(stdout).toContain(`/data/*/${OLD_FIELD}: not documented`);
  });
});
