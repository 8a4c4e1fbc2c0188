/**
 * The security view: the rules grouped under the OWASP API Security Top 10 (2023) categories each
 * names, in every report: one console line, the JSON report, JUnit properties, HTML.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleReport } from '../reporters/console.ts';
import { htmlReport } from '../reporters/html.ts';
import { junitReport } from '../reporters/junit.ts';
import { runSuite } from '../run/runner.ts';
import { securityView } from '../core/security-view.ts';
import type { Report } from '../core/report-model.ts';
import { configFor, requiredFailures } from './harness.ts';
import type { MutationServer } from '../../tools/test-support/mutations.ts';
import { MUTATIONS, startMutationServer } from '../../tools/test-support/mutations.ts';

let report: Report;

beforeAll(async () => {
  const target: MutationServer = await startMutationServer();
  try {
    const broken = MUTATIONS.find((m) => m.name === 'key-prefix-compared');
    if (!broken) throw new Error('no variant key-prefix-compared');
    report = await runSuite(
      configFor(target.urlOf(broken), target.world.credentials, { only: ['AUTH', 'ISOLATION', 'METHODS'] }),
    );
  } finally {
    await target.close();
  }
});

describe('the security view', () => {
  it('names each category by its OWASP id, and the failing check under API2', () => {
    expect(requiredFailures(report).map((f) => f.split(':')[0])).toEqual(['AUTH-014']);
    const view = report.security ?? [];
    expect(view.map((c) => c.id)).toEqual([
      'API1:2023',
      'API2:2023',
      'API3:2023',
      'API4:2023',
      'API5:2023',
      'API8:2023',
      'API9:2023',
    ]);
    const byId = Object.fromEntries(view.map((c) => [c.id, c]));
    expect(byId['API2:2023']).toMatchObject({ status: 'fail', failed: ['AUTH-014'] });
    expect(byId['API2:2023']?.checks).toEqual(expect.arrayContaining(['AUTH-013', 'AUTH-015', 'AUTH-017']));
    expect(byId['API1:2023']).toMatchObject({ status: 'pass', failed: [] });
    expect(byId['API5:2023']?.status).toBe('pass');
    // Not selected: nothing judged them, and the view says so rather than passing them.
    expect(byId['API4:2023']).toMatchObject({ status: 'not judged', checks: [] });
  });

  it('puts planned endpoints under API9 and drift under API3', () => {
    const view = securityView([
      { id: 'PLANNED-001', area: 'not-found', status: 'fail', owasp: ['API9:2023'] },
      { id: 'NOT-FOUND-001', area: 'not-found', status: 'fail' },
      { id: 'DRIFT-001', area: 'drift', drift: true, status: 'pass', owasp: ['API3:2023'] },
    ] as Report['results']);
    const byId = Object.fromEntries(view.map((c) => [c.id, c]));
    expect(byId['API9:2023']).toMatchObject({ status: 'fail', checks: ['PLANNED-001'] });
    expect(byId['API3:2023']).toMatchObject({ status: 'pass', checks: ['DRIFT-001'] });
    const lenient = securityView([
      { id: 'DRIFT-001', area: 'drift', drift: true, status: 'advisory', owasp: ['API3:2023'] },
      { id: 'DRIFT-002', area: 'drift', drift: true, status: 'pass', owasp: ['API3:2023'] },
    ] as Report['results']);
    // Drift found without --strict: reported, not passed, not failed.
    expect(lenient.find((c) => c.id === 'API3:2023')?.status).toBe('advisory');
  });

  it('fails only the categories a rule placed its findings under', () => {
    const view = securityView([
      {
        id: 'AUTH-015',
        area: 'auth',
        status: 'fail',
        owasp: ['API1:2023', 'API2:2023', 'API5:2023'],
        owaspFailed: ['API2:2023'],
      },
      { id: 'AUTH-011', area: 'auth', status: 'pass', owasp: ['API5:2023'] },
    ] as Report['results']);
    const byId = Object.fromEntries(view.map((c) => [c.id, c]));
    expect(byId['API2:2023']).toMatchObject({ status: 'fail', failed: ['AUTH-015'] });
    expect(byId['API5:2023']).toMatchObject({ status: 'pass', failed: [] });
    // Judged there, and held: a category its only rule failed elsewhere passes.
    expect(byId['API1:2023']).toMatchObject({ status: 'pass', checks: ['AUTH-015'] });
  });

  it('is one line of the console report', () => {
    const lines = consoleReport(report)
      .split('\n')
      .filter((l) => l.startsWith('SECURITY'));
    expect(lines).toEqual([
      'SECURITY (OWASP API Top 10 2023): API1:2023 pass · API2:2023 FAIL (AUTH-014) · API3:2023 not judged · API4:2023 not judged · API5:2023 pass · API8:2023 pass · API9:2023 pass',
    ]);
  });

  it('is a suite of JUnit properties and an HTML section', () => {
    const junit = junitReport(report);
    expect(junit).toContain('<testsuite name="security"');
    expect(junit).toMatch(
      /<property name="owasp\.API2:2023" value="fail \(failed: AUTH-014\): Broken Authentication; [^"]*AUTH-013/,
    );
    const html = htmlReport(report);
    expect(html).toContain('<section id="security">');
    expect(html).toMatch(
      /<td><b>API2:2023<\/b><\/td><td>Broken Authentication<\/td><td class="bad">FAIL: AUTH-014<\/td>/,
    );
  });
});
