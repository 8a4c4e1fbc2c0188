/**
 * `--expect-failures FILE`: a listed failure is reported but does not fail the run; a listed check
 * that passes fails the run (so the list cannot rot); an unknown id, or any other unusable entry,
 * is a configuration error (exit 2) before a single request is sent.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../core/report-model.ts';
import { junitTotals, runCli } from './harness.ts';
import { listen } from '../../tools/test-support/listen.ts';
import type { MutationServer } from '../../tools/test-support/mutations.ts';
import { MUTATIONS, startMutationServer } from '../../tools/test-support/mutations.ts';

let dir: string;
let variants: MutationServer;

const cli = (argv: string[]) => runCli(argv, { ...variants.world.credentials });

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const urlOf = (name: string) => {
  const mutation = MUTATIONS.find((m) => m.name === name);
  if (!mutation) throw new Error(`no variant ${name}`);
  return variants.urlOf(mutation);
};

// limit=1 answering two walks breaks the rule about the minimum page (COLLECTION-003) alone.
const YAML_LIST = `# staging: known failures
- id: COLLECTION-003
  reason: "API-812: limit=1 returns two walks; fix ships in 2.4"
`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'conformance-xfail-'));
  variants = await startMutationServer();
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await variants.close();
});

describe('--expect-failures', () => {
  it('reports a listed failure as expected and passes the run (YAML)', async () => {
    const json = join(dir, 'known.json');
    const junit = join(dir, 'known.xml');
    const list = file('known.yaml', YAML_LIST);
    const run = await cli([
      '--base-url',
      urlOf('limit-1-gives-2'),
      '--expect-failures',
      list,
      '--reporter',
      'json,junit',
      '--output',
      json,
      '--output',
      junit,
    ]);
    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain('\nFAILURES\n');
    expect(run.stdout).toContain(`EXPECTED FAILURES (listed in ${list}: reported, not failing the run)`);
    expect(run.stdout).toContain(
      '  ≈ COLLECTION-003 A limit at its minimum returns exactly that many items: GET ',
    );
    expect(run.stdout).toContain('/api/v1/walks?limit=1: 2 items, more than the 1 asked');
    expect(run.stdout).toContain('      reason: API-812: limit=1 returns two walks; fix ships in 2.4');
    expect(run.stdout).toMatch(/Verdict: PASS — 0 required check\(s\) failed, 1 expected failure\(s\)/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.summary).toMatchObject({ verdict: 'pass', requiredFailures: 0, expectedFailures: 1 });
    expect(report.results.find((r) => r.id === 'COLLECTION-003')).toMatchObject({
      status: 'fail',
      expectedFailure: { state: 'failing' },
    });
    const xml = readFileSync(junit, 'utf8');
    expect(junitTotals(xml).failures).toBe(0);
    expect(xml).toContain(
      '<skipped message="expected failure: API-812: limit=1 returns two walks; fix ships in 2.4">',
    );
  });

  it('still fails the run on a failure the file does not list', async () => {
    const run = await cli([
      '--base-url',
      urlOf('limit-200-gives-201'),
      '--expect-failures',
      file('other.yaml', YAML_LIST),
    ]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('✗ COLLECTION-004');
    expect(run.stdout).toMatch(/\nFAILURES\n(.*\n)*✗ COLLECTION-004 /);
  });

  it('fails the run when a listed check passes, so the list cannot rot (JSON)', async () => {
    const list = file('stale.json', JSON.stringify([{ id: 'COLLECTION-003', reason: 'API-812' }]));
    const junit = join(dir, 'stale.xml');
    const run = await cli([
      '--base-url',
      variants.urlOf('none'),
      '--expect-failures',
      list,
      '--reporter',
      'junit',
      '--output',
      junit,
    ]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      `EXPECTED FAILURES THAT NO LONGER FAIL (remove them from ${list}; each fails the run)`,
    );
    expect(run.stdout).toContain(
      '  ✗ COLLECTION-003 A limit at its minimum returns exactly that many items: passed',
    );
    expect(run.stdout).toMatch(
      /Verdict: FAIL — 0 required check\(s\) failed, 0 expected failure\(s\), 1 expected failure\(s\) no longer failing/,
    );
    expect(readFileSync(junit, 'utf8')).toContain(
      `message="listed in ${list} as an expected failure, but it passed: remove the entry"`,
    );
  });

  it('keeps an entry whose check could not run (a key is missing), without failing the run', async () => {
    const list = file(
      'skip.yaml',
      '- id: AUTH-009\n  reason: the revoked key is not provisioned on staging\n',
    );
    const { status, stdout } = await runCli(
      ['--base-url', variants.urlOf('none'), '--expect-failures', list],
      {
        CONFORMANCE_API_KEY: variants.world.credentials.CONFORMANCE_API_KEY,
      },
    );
    expect(status).toBe(0);
    expect(stdout).toContain('  - AUTH-009 [skip: set CONFORMANCE_REVOKED_KEY to run this rule]');
  });

  it('counts a drift check listed without --strict as still failing while the drift is there', async () => {
    const list = file('drift.yaml', '- id: DRIFT-001\n  reason: region field ships before the spec change\n');
    const json = join(dir, 'drift.json');
    const run = await cli([
      '--base-url',
      urlOf('undocumented-field'),
      '--expect-failures',
      list,
      '--reporter',
      'json',
      '--output',
      json,
    ]);
    expect(run.status).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.expectations?.entries).toEqual([
      { id: 'DRIFT-001', reason: 'region field ships before the spec change', state: 'failing' },
    ]);
  });

  it.each([
    ['an unknown id', '- id: WALKS-LIST-999\n  reason: typo\n', /unknown requirement id "WALKS-LIST-999"/],
    ['an entry without a reason', '- id: COLLECTION-003\n', /entry 1 \(COLLECTION-003\) needs a reason/],
    [
      'a duplicate',
      `${YAML_LIST}${YAML_LIST.split('\n').slice(1).join('\n')}`,
      /COLLECTION-003 is listed twice/,
    ],
    ['an unknown field', '- id: COLLECTION-003\n  reason: x\n  resaon: y\n', /unknown field "resaon"/],
    ['an advisory decision check', '- id: AUTH-004\n  reason: we answer 403\n', /AUTH-004 is advisory/],
    ['not a list', 'id: COLLECTION-003\nreason: x\n', /must be a list of \{ id, reason \} entries/],
    ['neither JSON nor YAML', '- id: [unclosed\n', /is neither JSON nor YAML/],
  ])('exits 2 on %s, before sending anything', async (_what, text, message) => {
    let requests = 0;
    const target = await listen((_req, res) => {
      requests++;
      res.writeHead(500).end();
    });
    try {
      const run = await cli(['--base-url', target.baseUrl, '--expect-failures', file('bad.yaml', text)]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(requests).toBe(0);
    } finally {
      await target.close();
    }
  });

  it('exits 2 when the file does not exist', async () => {
    const run = await cli([
      '--base-url',
      variants.urlOf('none'),
      '--expect-failures',
      join(dir, 'missing.yaml'),
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--expect-failures .*missing\.yaml: ENOENT/);
  });
});
