/**
 * The example CI job (.github/workflows/conformance.yml): it takes every key from the environment's
 * secrets, and its suite step — run here as written, through npm, against a local target — writes
 * the JUnit, JSON, HTML and HAR reports it publishes, passes a conformant target and fails the
 * build on a broken one.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main } from '../cli/cli.ts';
import { CREDENTIAL_KEY_NAMES } from '../../spec/facts.ts';
import type { Report } from '../core/report-model.ts';
import type { DriftServer } from './drift-server.ts';
import { startDriftServer } from './drift-server.ts';
import { junitTotals } from './harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKFLOW = join(ROOT, '.github/workflows/conformance.yml');

interface Step {
  id?: string;
  name?: string;
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
}
interface Job {
  env: Record<string, string>;
  steps: Step[];
}

const workflow = parse(readFileSync(WORKFLOW, 'utf8')) as { jobs: Record<string, Job> };
const staging = workflow.jobs.staging as Job;
const suiteStep = staging.steps.find((s) => s.id === 'suite');

let dir: string;
let server: DriftServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'conformance-ci-'));
  server = await startDriftServer();
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

/** Runs the suite step's script with bash, as the runner would, with the job's variables set. */
function runSuiteStep(baseUrl: string, reports: string, extra: Record<string, string>): Promise<number> {
  const { CONFORMANCE_WEB_BASE_URL: _web, ...keys } = server.credentials;
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    ...keys,
    CONFORMANCE_BASE_URL: baseUrl,
    CONFORMANCE_STRICT: staging.env.CONFORMANCE_STRICT ?? '',
    REPORTS: reports,
    EXPECTED_FAILURES: join(dir, 'none.yaml'),
    PREVIOUS_REPORT: join(dir, 'none.json'),
    ...extra,
  };
  return new Promise((resolve) => {
    execFile('bash', ['-c', suiteStep?.run ?? 'exit 99'], { cwd: ROOT, env, timeout: 90_000 }, (error) =>
      resolve(error ? Number((error as { code?: unknown }).code ?? 99) : 0),
    );
  });
}

describe('the example CI job', () => {
  it('takes every key from the environment secrets and the base URL from its variables, strict', () => {
    for (const name of CREDENTIAL_KEY_NAMES) expect(staging.env[name]).toBe(`\${{ secrets.${name} }}`);
    expect(staging.env.CONFORMANCE_BASE_URL).toBe('${{ vars.CONFORMANCE_BASE_URL }}');
    expect(staging.env.CONFORMANCE_STRICT).toBe('1');
    // The way there, as the action takes it: a proxy, a private CA, a client certificate, headers.
    for (const name of ['CONFORMANCE_PROXY', 'CONFORMANCE_HEADERS', 'CLIENT_CERT', 'CLIENT_KEY']) {
      expect(staging.env[name]).toMatch(/^\$\{\{ secrets\.CONFORMANCE_/);
    }
    expect(staging.env.CA_CERT).toBe('${{ vars.CONFORMANCE_CA_CERT }}');
    expect(staging.steps.map((s) => s.run)).toContain('npm ci --omit=dev --no-audit --no-fund');
    const published = staging.steps.map((s) => s.uses?.split('@')[0]);
    expect(published).toContain('mikepenz/action-junit-report');
    expect(published).toContain('actions/upload-artifact');
  });

  it('writes the reports it publishes, with the expected failures and the comparison, and passes a conformant target', async () => {
    const previous = join(dir, 'previous.json');
    await main(
      ['--base-url', server.referenceUrl, '--reporter', 'json', '--output', previous],
      { ...server.credentials },
      { stdout: () => undefined, stderr: () => undefined },
    );
    const expected = join(dir, 'expected.yaml');
    writeFileSync(expected, '# nothing is known to fail on this target\n[]\n');
    const reports = join(dir, 'pass');
    const status = await runSuiteStep(server.referenceUrl, reports, {
      EXPECTED_FAILURES: expected,
      PREVIOUS_REPORT: previous,
    });
    expect(status).toBe(0);
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as Report;
    expect(report.target.strict).toBe(true);
    expect(report.expectations?.file).toBe(expected);
    expect(report.comparison?.previous.file).toBe(previous);
    expect(junitTotals(readFileSync(join(reports, 'conformance.junit.xml'), 'utf8')).failures).toBe(0);
    expect(readFileSync(join(reports, 'conformance.html'), 'utf8')).toContain(
      '<h2>Since the previous report</h2>',
    );
    const har = JSON.parse(readFileSync(join(reports, 'conformance.har'), 'utf8')) as {
      log: { entries: unknown[] };
    };
    expect(har.log.entries).toHaveLength(report.requests.sent);
  }, 120_000);

  it('fails the build on a target that drifted, still writing the reports', async () => {
    const reports = join(dir, 'fail');
    const status = await runSuiteStep(server.urlOf({}), reports, {});
    expect(status).toBe(1);
    expect(junitTotals(readFileSync(join(reports, 'conformance.junit.xml'), 'utf8')).failures).toBe(3);
    expect(readFileSync(join(reports, 'conformance.html'), 'utf8')).toContain('<h2>Drift (');
  }, 120_000);
});
