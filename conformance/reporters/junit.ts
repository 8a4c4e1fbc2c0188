/**
 * JUnit XML for CI: one test suite per area, one test case per requirement, valid against both
 * schemas CI readers hold reports to (the Jenkins xUnit plugin's `junit-10.xsd` and the Apache Ant
 * schema; `conformance/test/junit-schemas/`): `<testsuites>` with the totals CI readers add up
 * (`name`, `tests`, `failures`, `errors`, `time`: all junit-10.xsd allows there; the Ant schema
 * describes the suites within), every suite with its
 * counts, time, timestamp and host, its properties, output and error output, and at most one
 * outcome per test case. Result classes: fail is a `<failure>`; skip is `<skipped>`; inconclusive
 * (the data could not show it) and a run not judged are an `<error>` with the reason. An expected
 * failure is skipped (as pytest reports xfail); an expected failure that passed is a failure.
 * Checks run side by side and share their fetches, so a test case's time is its share of the run's
 * wall time (its own elapsed time is in the JSON report): the cases never add up to more than the
 * run took. The drift listing and the advisories are their suite's output; the comparison, the
 * reach, the coverage and the security view have suites of their own.
 */
import { hostname } from 'node:os';
import { securityLine } from '../core/security-view.ts';
import type { CheckResult, Report } from '../core/report-model.ts';
import { AREAS } from '../core/report-model.ts';
import {
  comparisonLines,
  coverageHeadline,
  coverageLines,
  driftLines,
  judgedText,
  statusCoverageText,
} from './sections.ts';

type Outcome = 'failure' | 'error' | 'skipped' | 'passed';

/** How JUnit sees a result: failures are what fails the build's test report. */
function outcomeOf(r: CheckResult): Outcome {
  if (r.expectedFailure?.state === 'fixed') return 'failure';
  if (r.expectedFailure?.state === 'failing') return 'skipped';
  switch (r.status) {
    case 'fail':
      return 'failure';
    case 'skip':
      return 'skipped';
    case 'pass':
    case 'advisory':
      return 'passed';
    default:
      // not judged, and whatever else a run could not judge
      return 'error';
  }
}

interface Suite {
  name: string;
  cases: string[];
  counts: Record<Exclude<Outcome, 'passed'>, number>;
  seconds: number;
  properties?: [string, string][];
  out?: string;
}

const NO_COUNTS = { failure: 0, error: 0, skipped: 0 };
const seconds = (ms: number) => (ms / 1000).toFixed(3);

export function junitReport(report: Report): string {
  const share = timeShare(report);
  const suites: Suite[] = [];
  // A run the pre-flight stopped holds one test case, the pre-flight's, in error (not a failure of
  // the deployment).
  if (report.unreachable) {
    const ms = report.preflight?.durationMs ?? report.durationMs;
    suites.push({
      name: 'pre-flight',
      cases: [
        `    <testcase classname="conformance.pre-flight" name="the deployment can be judged" time="${seconds(ms)}"><error type="not judged" message="${xml(report.unreachable)}">${xml(`not judged: ${report.unreachable}`)}</error></testcase>`,
      ],
      counts: { ...NO_COUNTS, error: 1 },
      seconds: ms / 1000,
    });
  }
  for (const area of AREAS) {
    const results = report.results.filter((r) => r.area === area);
    if (results.length === 0 && (area !== 'drift' || report.unreachable)) continue;
    const counts = { ...NO_COUNTS };
    for (const r of results) {
      const outcome = outcomeOf(r);
      if (outcome !== 'passed') counts[outcome]++;
    }
    const advisories = results
      .filter((r) => r.status === 'advisory' && !r.expectedFailure)
      .map((r) => `advisory ${r.id}: ${r.actual}${r.drift ? '' : ` (${r.expected})`}`);
    const drift = area === 'drift' ? driftLines(report) : [];
    suites.push({
      name: area,
      cases: results.map((r) => testCase(r, report, share)),
      counts,
      seconds: results.reduce((sum, r) => sum + share(r), 0),
      out: [...drift, ...advisories].join('\n'),
    });
  }
  suites.push(...reachSuite(report), ...coverageSuite(report), ...securitySuite(report));
  const since = comparisonLines(report);
  if (since.length > 0)
    suites.push({ name: 'comparison', cases: [], counts: NO_COUNTS, seconds: 0, out: since.join('\n') });
  const header = { timestamp: timestampOf(report.startedAt), hostname: hostname() || 'localhost' };
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', rootXml(suites, report)];
  suites.forEach((suite, id) => out.push(...suiteXml(suite, id, header)));
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/** The root with the totals of every suite; its time is the run's wall time. */
function rootXml(suites: readonly Suite[], report: Report): string {
  const total = (count: (suite: Suite) => number) => suites.reduce((sum, suite) => sum + count(suite), 0);
  const tests = total((suite) => suite.cases.length);
  const failures = total((suite) => suite.counts.failure);
  const errors = total((suite) => suite.counts.error);
  return `<testsuites name="conformance" tests="${tests}" failures="${failures}" errors="${errors}" time="${seconds(report.durationMs)}">`;
}

function suiteXml(suite: Suite, id: number, header: { timestamp: string; hostname: string }): string[] {
  const { failure, error, skipped } = suite.counts;
  const properties = suite.properties ?? [];
  return [
    `  <testsuite name="${xml(suite.name)}" package="conformance.${xml(suite.name)}" id="${id}" timestamp="${header.timestamp}" hostname="${xml(header.hostname)}" tests="${suite.cases.length}" failures="${failure}" errors="${error}" skipped="${skipped}" time="${suite.seconds.toFixed(3)}">`,
    properties.length === 0
      ? '    <properties/>'
      : [
          '    <properties>',
          ...properties.map(([name, value]) => `      <property name="${xml(name)}" value="${xml(value)}"/>`),
          '    </properties>',
        ].join('\n'),
    ...suite.cases,
    suite.out ? `    <system-out>${xml(suite.out)}</system-out>` : '    <system-out/>',
    '    <system-err/>',
    '  </testsuite>',
  ];
}

/** Ant's timestamp: ISO 8601 without a time zone (the run's start, in UTC) or fractions of a second. */
function timestampOf(startedAt: string): string {
  const date = new Date(startedAt);
  return (Number.isNaN(date.getTime()) ? new Date(0) : date).toISOString().slice(0, 19);
}

/**
 * Each check's share of the run's wall time, in seconds: its own elapsed time, scaled down when the
 * checks, running side by side, add up to more than the run took.
 */
function timeShare(report: Report): (r: CheckResult) => number {
  const total = report.results.reduce((sum, r) => sum + r.durationMs, 0);
  const scale = total > report.durationMs && total > 0 ? report.durationMs / total : 1;
  return (r) => Math.floor(r.durationMs * scale) / 1000;
}

/**
 * How the target was reached (proxy origin, CA and certificate files, header names; never a
 * secret) as properties, and `--insecure` said in words where CI shows a suite's output.
 */
function reachSuite(report: Report): Suite[] {
  const reach = report.target.reach;
  if (!reach) return [];
  const properties: [string, string][] = [
    ...(reach.proxy ? [['proxy', reach.proxy] as [string, string]] : []),
    ...(reach.caFile ? [['ca-file', reach.caFile] as [string, string]] : []),
    ...(reach.insecure ? [['insecure', 'true'] as [string, string]] : []),
    ...(reach.clientCert ? [['client-certificate', reach.clientCert] as [string, string]] : []),
    ...(reach.headers ? [['headers', reach.headers.join(', ')] as [string, string]] : []),
  ];
  const out = reach.insecure ? '--insecure: TLS certificates were not verified' : '';
  return [{ name: 'reach', cases: [], counts: NO_COUNTS, seconds: 0, properties, out }];
}

/**
 * The coverage as a suite of properties CI can read (seed, sample, statuses per operation, records
 * per requirement, gaps), its lines as system-out.
 */
function coverageSuite(report: Report): Suite[] {
  const coverage = report.coverage;
  if (!coverage) return [];
  const properties: [string, string][] = [
    ['seed', String(coverage.seed)],
    ['coverage', coverageHeadline(coverage)],
    ...(coverage.sampled
      ? [['sampled', `${coverage.sampled.n} of ${coverage.sampled.of}`] as [string, string]]
      : []),
    ...coverage.operations.map((o): [string, string] => [`statuses.${o.operationId}`, statusCoverageText(o)]),
    ...coverage.requirements
      .filter((r) => r.records > 0)
      .map((r): [string, string] => [`judged.${r.id}`, judgedText(r)]),
    ...coverage.gaps.map((gap, i): [string, string] => [`not-covered.${i + 1}`, gap]),
  ];
  return [
    {
      name: 'coverage',
      cases: [],
      counts: NO_COUNTS,
      seconds: 0,
      properties,
      out: coverageLines(report).join('\n'),
    },
  ];
}

/** The OWASP API Security Top 10 (2023) view as properties: `owasp.API1:2023` = `pass: ISOLATION-001, ...`. */
function securitySuite(report: Report): Suite[] {
  if (!report.security) return [];
  const properties = report.security.map((c): [string, string] => [
    `owasp.${c.id}`,
    `${c.status}${c.failed.length ? ` (failed: ${c.failed.join(', ')})` : ''}: ${c.name}; ${c.checks.join(', ')}`,
  ]);
  return [
    {
      name: 'security',
      cases: [],
      counts: NO_COUNTS,
      seconds: 0,
      properties,
      out: securityLine(report.security),
    },
  ];
}

function testCase(r: CheckResult, report: Report, share: (r: CheckResult) => number): string {
  const open = `    <testcase classname="conformance.${r.area}" name="${xml(`${r.id} ${r.title}`)}" time="${share(r).toFixed(3)}">`;
  const file = report.expectations?.file ?? 'the expected-failures file';
  const repro = r.request ? `\nreproduce: ${r.request.curl}` : '';
  let body: string | undefined;
  if (r.expectedFailure?.state === 'fixed') {
    const message = `listed in ${file} as an expected failure, but it passed: remove the entry`;
    body = `<failure type="${r.id}" message="${xml(message)}">${xml(`${message}\nlisted because: ${r.expectedFailure.reason}\nactual: ${r.actual}`)}</failure>`;
  } else if (r.expectedFailure?.state === 'failing') {
    const message = `expected failure: ${r.expectedFailure.reason}`;
    body = `<skipped message="${xml(message)}">${xml(`expected failure (${file}): ${r.actual}${repro}`)}</skipped>`;
  } else if (r.status === 'fail') {
    const text = [
      `expected: ${r.expected}`,
      `actual: ${r.actual}`,
      r.hint ? `hint: ${r.hint}` : '',
      ...(r.drift
        ? ['every difference is listed in the drift suite']
        : [
            ...(r.details ?? []).map((d) => `- ${d}`),
            ...(r.findings === undefined
              ? []
              : [`… and ${r.findings - (r.details?.length ?? 0)} more: the JSON report lists every one`]),
          ]),
      r.request ? `reproduce: ${r.request.curl}` : '',
    ]
      .filter(Boolean)
      .join('\n');
    body = `<failure type="${r.id}" message="${xml(r.actual)}">${xml(text)}</failure>`;
  } else if (outcomeOf(r) === 'skipped') {
    body = `<skipped message="${xml(`${r.status}: ${r.reason ?? ''}`)}"/>`;
  } else if (outcomeOf(r) === 'error') {
    const reason = r.reason ?? r.actual;
    body = `<error type="${xml(r.status)}" message="${xml(reason)}">${xml(`${r.status}: ${reason}\nexpected: ${r.expected}${repro}`)}</error>`;
  }
  return body ? `${open}${body}</testcase>` : `${open}</testcase>`;
}

/** XML-escapes text, dropping characters XML 1.0 cannot carry. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}
