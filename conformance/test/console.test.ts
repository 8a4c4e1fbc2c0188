/**
 * The console report respects its reader: a pass is a few lines; a failure shows each failing
 * requirement once with at most five examples and where the rest are; --quiet keeps the verdict and
 * the failures; --verbose shows everything; colour only when asked for.
 */
import { describe, expect, it } from 'vitest';
import { consoleReport, EXAMPLES } from '../reporters/console.ts';
import type { CheckResult, Report } from '../core/report-model.ts';

function result(overrides: Partial<CheckResult>): CheckResult {
  return {
    id: 'COLLECTION-001',
    section: '§4.2',
    title: 'The list answers',
    area: 'walks-list',
    level: 'required',
    effectiveLevel: 'required',
    drift: false,
    status: 'pass',
    expected: 'a list',
    actual: 'a list',
    durationMs: 1,
    ...overrides,
  };
}

function reportWith(results: CheckResult[]): Report {
  const count = (status: string) => results.filter((r) => r.status === status).length;
  const fail = count('fail');
  return {
    tool: { name: 'canvassing-conformance', version: '0.1.0' },
    spec: { path: 'spec/openapi.yaml', version: '1', sha256: '0' },
    target: { baseUrl: 'http://127.0.0.1:1', profile: 'live', strict: false, embedded: false },
    startedAt: '2026-11-24T00:00:00.000Z',
    durationMs: 1200,
    requests: { sent: 10, budget: 1500, memoized: 2 },
    preflight: { requests: 1, durationMs: 7, warnings: [] },
    summary: {
      total: results.length,
      pass: count('pass'),
      fail,
      skip: count('skip'),
      advisory: count('advisory'),
      'not-judged': count('not-judged'),
      requiredNotJudged: 0,
      requiredFailures: fail,
      expectedFailures: 0,
      fixedExpectedFailures: 0,
      verdict: fail > 0 ? 'fail' : 'pass',
    },
    results,
    drift: { judged: 10, findings: [], omitted: 0 },
  };
}

const advisories = Array.from({ length: 12 }, (_, i) =>
  result({ id: `AUTH-0${10 + i}`, status: 'advisory', actual: `choice ${i}`, level: 'advisory' }),
);
const passing = reportWith([
  result({}),
  ...advisories,
  result({ id: 'AUTH-001', status: 'skip', reason: 'no key' }),
]);
const walks = Array.from({ length: 9 }, (_, i) => `walk ${i + 1} has the wrong count`);
const failing = reportWith([
  result({ id: 'CONSISTENCY-001', status: 'fail', actual: '9 walks disagree', details: walks }),
  ...advisories,
]);

describe('the console report', () => {
  it('on a pass: the summary, no wall of advisories, and the report paths at the end', () => {
    const text = consoleReport(passing, { reportPaths: ['reports/c.json', 'reports/c.har'] });
    const lines = text.trimEnd().split('\n');
    expect(text).not.toContain('choice 3');
    expect(text).toContain('12 advisory, 1 skipped or not judged (--verbose says what and why)');
    expect(lines.slice(-3)).toEqual([
      expect.stringMatching(/^Verdict: PASS — 0 required check\(s\) failed/),
      'report: reports/c.json',
      'report: reports/c.har',
    ]);
    expect(lines.length).toBeLessThanOrEqual(10);
  });

  it('on a failure: the requirement once, five examples and where the rest are', () => {
    const text = consoleReport(failing, { reportPaths: ['out/run.junit.xml', 'out/run.json'] });
    expect(text.match(/CONSISTENCY-001/g)).toHaveLength(1);
    for (const walk of walks.slice(0, EXAMPLES)) expect(text).toContain(`- ${walk}`);
    expect(text).not.toContain(walks[EXAMPLES]);
    expect(text).toContain(`… and ${walks.length - EXAMPLES} more (see out/run.json)`);
    expect(text.trimEnd().split('\n').at(-1)).toBe('report: out/run.json');
  });

  it('without a file report, points at --verbose for the rest', () => {
    expect(consoleReport(failing)).toContain('… and 4 more (--verbose shows them)');
  });

  it('--verbose shows every example, every advisory and the pre-flight figures', () => {
    const text = consoleReport(failing, { verbosity: 'verbose' });
    for (const walk of walks) expect(text).toContain(walk);
    expect(text).toContain('~ AUTH-013');
    expect(text).toContain('pre-flight: 1 request(s), 7 ms');
    expect(text).not.toContain('more (');
  });

  it('--quiet prints only the failures and the summary line', () => {
    const quiet = consoleReport(failing, { verbosity: 'quiet' }).trimEnd().split('\n');
    expect(quiet[0]).toBe('FAILURES');
    expect(quiet.at(-1)).toMatch(/^Verdict: FAIL/);
    expect(quiet.join('\n')).not.toMatch(/conformance —|advisory, .* skipped or not judged|DRIFT/);
    expect(consoleReport(passing, { verbosity: 'quiet' }).trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^Verdict: PASS/),
    ]);
  });

  it('colours only when asked, and shows the pre-flight warnings', () => {
    const warned = {
      ...failing,
      preflight: { requests: 1, durationMs: 3, warnings: ['it looks like a mock'] },
    };
    expect(consoleReport(warned)).not.toContain('\u001b[');
    expect(consoleReport(warned)).toContain('  warning: it looks like a mock');
    const coloured = consoleReport(warned, { color: true });
    expect(coloured).toContain('\u001b[31mFAIL\u001b[0m');
    expect(coloured.replaceAll('\u001b[31m', '').replaceAll('\u001b[0m', '')).toBe(consoleReport(warned));
  });
});
