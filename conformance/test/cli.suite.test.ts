/** The command line: flags and environment, reporters and files, exit statuses, no key in any output. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCredentials } from '../../fixtures/index.ts';
import { main } from '../cli/cli.ts';
import { programOf } from '../cli/config.ts';
import type { Report } from '../core/report-model.ts';
import { junitTotals, runCli } from './harness.ts';
import { listen } from '../../tools/test-support/listen.ts';
import type { MutationServer } from '../../tools/test-support/mutations.ts';
import { MUTATIONS, startMutationServer } from '../../tools/test-support/mutations.ts';

const demo = demoCredentials();
const expectNoKeys = (text: string) => {
  for (const value of Object.values(demo)) expect(text).not.toContain(value);
};

let dir: string;
let variants: MutationServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
  variants = await startMutationServer();
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await variants.close();
});

describe('npm run conformance', () => {
  it('documents every option and variable in --help', async () => {
    const { status, stdout } = await runCli(['--help']);
    expect(status).toBe(0);
    for (const word of [
      '--base-url',
      '--profile',
      '--strict',
      '--concurrency',
      '--timeout',
      '--max-requests',
      '--reporter',
      '--output',
      '--har',
      '--expect-failures',
      '--compare',
      'CONFORMANCE_STRICT=1',
      'CONFORMANCE_EMPTY_CAMPAIGN_KEY',
      'Exit status',
    ]) {
      expect(stdout).toContain(word);
    }
  });

  it('names the command in the usage line as it was run: the packaged bin, or the npm script', async () => {
    expect(programOf('/p/node_modules/.bin/canvassing-conformance')).toBe('canvassing-conformance');
    expect(programOf('/p/node_modules/canvassing-conformance/dist/bin/canvassing-conformance.mjs')).toBe(
      'canvassing-conformance',
    );
    expect(programOf('/repo/conformance/main.ts')).toBe('npm run conformance --');
    let help = '';
    const io = { stdout: (text: string) => (help += text), stderr: () => undefined };
    expect(await main(['--help'], {}, { ...io, program: 'canvassing-conformance' })).toBe(0);
    expect(help.split('\n')[0]).toBe('Usage: canvassing-conformance [options]');
    expect((await runCli(['--help'])).stdout.split('\n')[0]).toBe('Usage: npm run conformance -- [options]');
  });

  it('checks the embedded reference server without a base URL, writing JUnit and JSON', async () => {
    const junit = join(dir, 'r.xml');
    const json = join(dir, 'r.json');
    const { status, stdout } = await runCli(
      ['--reporter', 'junit,json', '--output', junit, '--output', json],
      {
        CONFORMANCE_STRICT: '1',
      },
    );
    expect(status).toBe(0);
    expect(stdout).toContain('(embedded reference server)');
    expect(stdout).toContain('strict on');
    expect(stdout).toMatch(/Verdict: PASS/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.summary.verdict).toBe('pass');
    expect(report.target.embedded).toBe(true);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites name="conformance" tests="\d+" failures="0"/);
    expect(junitTotals(xml)).toMatchObject({ tests: report.results.length, failures: 0 });
    expect(xml).toContain('<testsuite name="isolation"');
    for (const text of [stdout, xml, readFileSync(json, 'utf8')]) expectNoKeys(text);
  });

  it('exits 1 on a required failure and prints the requirement, a hint and a curl with the key variable', async () => {
    const broken = MUTATIONS.find((m) => m.name === 'limit-1-gives-2');
    if (!broken) throw new Error('variant missing');
    const { status, stdout } = await runCli(['--base-url', variants.urlOf(broken)], { ...demo });
    expect(status).toBe(1);
    expect(stdout).toContain(
      '✗ COLLECTION-003 [required, §4.2, §8] A limit at its minimum returns exactly that many items',
    );
    expect(stdout).toContain('expected:  min(minimum, M) items');
    expect(stdout).toMatch(/actual: {4}GET \S+\/api\/v1\/walks\?limit=1: 2 items, more than the 1 asked/);
    expect(stdout).toContain('hint:');
    expect(stdout).toContain(
      `reproduce: curl -sS -i '${variants.urlOf(broken)}/api/v1/walks?limit=1' -H "Authorization: Bearer $CONFORMANCE_API_KEY"`,
    );
    expectNoKeys(stdout);
  });

  it('skips the checks whose key is not set, naming the variable', async () => {
    const { status, stdout } = await runCli(['--base-url', variants.urlOf('none'), '--verbose'], {
      CONFORMANCE_API_KEY: demo.CONFORMANCE_API_KEY,
    });
    expect(status).toBe(0);
    expect(stdout).toContain(
      'AUTH-009 A revoked key is refused (4xx, no data), in either header [skip]: set CONFORMANCE_REVOKED_KEY to run this rule',
    );
    expect(stdout).toContain('[skip]: set CONFORMANCE_OTHER_CAMPAIGN_KEY to run this rule');
    expect(stdout).toContain('[skip]: set CONFORMANCE_WEB_BASE_URL to run this rule');
  });

  it('lets flags override the environment', async () => {
    const { stdout } = await runCli(['--base-url', variants.urlOf('none'), '--only', 'COLLECTION-001'], {
      ...demo,
      CONFORMANCE_BASE_URL: 'http://127.0.0.1:9/never-used',
    });
    expect(stdout).toContain(`conformance — ${variants.urlOf('none')}`);
  });

  it('exits 2 when nothing answers at the base URL', async () => {
    const gone = await listen(() => undefined);
    await gone.close();
    const { status, stderr } = await runCli(['--base-url', gone.baseUrl], {
      CONFORMANCE_API_KEY: demo.CONFORMANCE_API_KEY,
    });
    expect(status).toBe(2);
    expect(stderr).toMatch(/cannot be reached: connection refused/);
  });

  it.each([
    [['--bogus'], /^conformance: unknown flag --bogus\nRun with --help for the options\.\n$/],
    [['--max-request', '9'], /unknown flag --max-request \(did you mean --max-requests\?\)/],
    [['--concurrency', '0'], /--concurrency must be an integer from 1 to 64/],
    [['--profile', 'staging'], /--profile must be one of live, mock, not "staging"/],
    [['--base-url', 'ftp://example.org'], /must be an http or https URL/],
    [['--base-url', 'http://127.0.0.1:1'], /CONFORMANCE_API_KEY is not set/],
    [['--reporter', 'pdf'], /--reporter must be one of console, junit, json, html/],
    [['--profile', 'mock'], /--profile mock needs --base-url/],
  ])('exits 2 on unusable configuration: %j', async (argv, message) => {
    const { status, stderr } = await runCli(argv);
    expect(status).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('never echoes a key from a bad configuration', async () => {
    const { status, stderr } = await runCli(
      ['--base-url', `http://127.0.0.1:1/${demo.CONFORMANCE_API_KEY}?x=1`],
      { ...demo },
    );
    expect(status).toBe(2);
    expectNoKeys(stderr);
  });
});
