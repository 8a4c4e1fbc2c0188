/**
 * The JUnit report is one CI readers accept: valid against the Jenkins xUnit plugin's junit-10.xsd
 * and the Apache Ant JUnit schema (vendored in junit-schemas/, validated by libxml2 through
 * xmllint-wasm), every suite's tests, failures, errors and skipped counting its test cases, fail a
 * failure, skip skipped, "not judged" an error with the reason, and test case
 * times that never add up to more than the run took.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import { MUTATIONS, type MutationServer, startMutationServer } from '../../tools/test-support/mutations.ts';
import { junitReport } from '../reporters/junit.ts';
import { runSuite } from '../run/runner.ts';
import type { CheckResult, Report } from '../core/report-model.ts';
import { configFor } from './harness.ts';

const SCHEMAS = ['junit-10.xsd', 'ant-junit.xsd'].map((name) => ({
  fileName: name,
  contents: readFileSync(new URL(`./junit-schemas/${name}`, import.meta.url), 'utf8'),
}));

let reference: RunningServer;
let mutations: MutationServer;
let passing: Report;
let failing: Report;
const BROKEN = MUTATIONS.find((m) => m.name === 'meta-count-off-by-one');

beforeAll(async () => {
  reference = await startReferenceServer({ log: false });
  mutations = await startMutationServer();
  if (!BROKEN) throw new Error('the proof set has no meta-count-off-by-one mutation');
  passing = await runSuite(configFor(reference.baseUrl, reference.credentials));
  failing = await runSuite(configFor(mutations.urlOf(BROKEN), mutations.world.credentials));
}, 90_000);

afterAll(async () => {
  await reference?.close();
  await mutations?.close();
});

/** Every result class and expected-failure state in one report, from a real run's results. */
function everyClass(report: Report): Report {
  const [a, b, c, d, e, ...rest] = report.results as [
    CheckResult,
    CheckResult,
    CheckResult,
    CheckResult,
    CheckResult,
    ...CheckResult[],
  ];
  const results: CheckResult[] = [
    { ...a, status: 'fail', actual: 'meta.count is 6 but data has <5> & "items"' },
    { ...b, status: 'skip', reason: 'set CONFORMANCE_NO_SCOPE_KEY to run this check' },
    { ...c, status: 'not-judged', reason: 'fewer than 51 walks for the default limit' },
    { ...d, status: 'fail', expectedFailure: { reason: 'API-812', state: 'failing' } },
    { ...e, status: 'pass', expectedFailure: { reason: 'API-813', state: 'fixed' } },
    ...rest,
  ];
  return { ...report, results };
}

const unreachable = (report: Report): Report => ({
  ...report,
  results: [],
  unreachable: 'http://127.0.0.1:9 cannot be reached: connection refused',
  summary: { ...report.summary, verdict: 'not judged' },
});

/**
 * Valid against junit-10.xsd as written, and against the Ant schema once the root's totals are taken
 * off (Ant's schema describes the suites and allows the root no attribute; junit-10.xsd, the one
 * Jenkins reads with, allows the totals CI readers add up).
 */
async function expectValid(xml: string): Promise<void> {
  for (const schema of SCHEMAS) {
    const contents =
      schema.fileName === 'ant-junit.xsd' ? xml.replace(/<testsuites [^>]*>/, '<testsuites>') : xml;
    const result = await validateXML({ xml: { fileName: 'conformance.junit.xml', contents }, schema });
    expect(result.errors.map((e) => `${schema.fileName}: ${e.rawMessage}`)).toEqual([]);
    expect(result.valid).toBe(true);
  }
}

/** Each suite's counts against the test cases it holds. */
function suitesOf(xml: string) {
  return [...xml.matchAll(/<testsuite ([^>]*)>([^]*?)<\/testsuite>/g)].map(
    ([, attributes = '', body = '']) => {
      const attr = (name: string) => Number(new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1]);
      const count = (tag: string) => (body.match(new RegExp(`<${tag}[ />]`, 'g')) ?? []).length;
      return {
        declared: {
          tests: attr('tests'),
          failures: attr('failures'),
          errors: attr('errors'),
          skipped: attr('skipped'),
        },
        held: {
          tests: count('testcase'),
          failures: count('failure'),
          errors: count('error'),
          skipped: count('skipped'),
        },
        caseSeconds: [...body.matchAll(/<testcase [^>]*time="([\d.]+)"/g)].map((m) => Number(m[1])),
        time: attr('time'),
      };
    },
  );
}

describe('the JUnit report', () => {
  it('is valid against junit-10.xsd and the Ant schema: a pass, a failure, every class, a run not judged', async () => {
    for (const report of [passing, failing, everyClass(passing), unreachable(passing)]) {
      await expectValid(junitReport(report));
    }
  });

  it('refuses a report it should: junit-10.xsd fails a root attribute it does not know', async () => {
    const odd = junitReport(passing).replace('<testsuites ', '<testsuites skipped="0" ');
    const result = await validateXML({ xml: odd, schema: SCHEMAS[0] ?? [] });
    expect(result.valid).toBe(false);
  });

  it('totals tests, failures and errors on the root, as CI readers add them up', () => {
    for (const report of [passing, failing, everyClass(passing), unreachable(passing)]) {
      const xml = junitReport(report);
      const root = /<testsuites ([^>]*)>/.exec(xml)?.[1] ?? '';
      const attr = (name: string) => Number(new RegExp(`\\b${name}="([^"]*)"`).exec(root)?.[1]);
      const suites = suitesOf(xml);
      const sum = (name: 'tests' | 'failures' | 'errors') => suites.reduce((t, s) => t + s.held[name], 0);
      expect({ tests: attr('tests'), failures: attr('failures'), errors: attr('errors') }).toEqual({
        tests: sum('tests'),
        failures: sum('failures'),
        errors: sum('errors'),
      });
      expect(attr('time')).toBeCloseTo(report.durationMs / 1000, 2);
    }
    expect(/<testsuites [^>]*failures="(\d+)"/.exec(junitReport(failing))?.[1]).toBe(
      String(failing.summary.fail),
    );
  });

  it('counts tests, failures, errors and skipped per suite as its test cases show them', () => {
    for (const report of [passing, failing, everyClass(passing), unreachable(passing)]) {
      for (const suite of suitesOf(junitReport(report))) expect(suite.declared).toEqual(suite.held);
    }
  });

  it('maps the classes: fail a failure, skip skipped, not judged an error with its reason', () => {
    const xml = junitReport(everyClass(passing));
    expect(xml).toMatch(
      /<failure type="[^"]+" message="meta\.count is 6 but data has &lt;5&gt; &amp; &quot;items&quot;">/,
    );
    expect(xml).toContain('<skipped message="skip: set CONFORMANCE_NO_SCOPE_KEY to run this check"/>');
    expect(xml).toContain('<error type="not-judged" message="fewer than 51 walks for the default limit">');
    expect(xml).toContain('<skipped message="expected failure: API-812">');
    expect(xml).toMatch(
      /<failure type="[^"]+" message="listed in the expected-failures file as an expected failure, but it passed/,
    );
    expect(junitReport(unreachable(passing))).toMatch(
      /<error type="not judged" message="http:\/\/127\.0\.0\.1:9 cannot be reached/,
    );
    const failures = suitesOf(junitReport(failing)).reduce((sum, s) => sum + s.declared.failures, 0);
    expect(failures).toBe(failing.summary.fail);
  });

  it("has test case times that add up to no more than the run's wall time, and suites that sum them", () => {
    for (const report of [passing, failing]) {
      const suites = suitesOf(junitReport(report));
      const cases = suites.flatMap((s) => s.caseSeconds);
      expect(cases.length).toBe(report.results.length);
      expect(cases.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(report.durationMs / 1000);
      // Checks ran side by side: their own times added up to more than the run, so they were shared out.
      expect(report.results.reduce((sum, r) => sum + r.durationMs, 0)).toBeGreaterThan(report.durationMs);
      for (const suite of suites) {
        expect(suite.time).toBeCloseTo(
          suite.caseSeconds.reduce((a, b) => a + b, 0),
          2,
        );
      }
    }
  });
});
