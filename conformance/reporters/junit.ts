/**
 * JUnit XML for CI: one test suite per area, one test case per requirement. An expected failure is
 * a skipped test case (as pytest reports xfail); an expected failure that passed is a failure. The
 * drift listing is the drift suite's system-out; the comparison has a suite of its own.
 */
import { securityLine } from '../security-view.ts';
import type { CheckResult, Report } from '../types.ts';
import { AREAS } from '../types.ts';
import {
  comparisonLines,
  coverageHeadline,
  coverageLines,
  driftLines,
  judgedText,
  statusCoverageText,
} from './sections.ts';

type Outcome = 'failure' | 'skipped' | 'passed';

/** How JUnit sees a result: failures are what fails the build's test report. */
function outcomeOf(r: CheckResult): Outcome {
  if (r.expectedFailure?.state === 'fixed') return 'failure';
  if (r.expectedFailure?.state === 'failing') return 'skipped';
  if (r.status === 'fail') return 'failure';
  if (r.status === 'skip' || r.status === 'not-judged') return 'skipped';
  return 'passed';
}

export function junitReport(report: Report): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const count = (results: CheckResult[], outcome: Outcome) =>
    results.filter((r) => outcomeOf(r) === outcome).length;
  // A run the pre-flight stopped holds one test case, the pre-flight's, in error (not a failure of
  // the deployment): the root counts what its suites hold.
  const stopped = report.unreachable ? 1 : 0;
  out.push(
    `<testsuites name="${xml(report.tool.name)}" tests="${report.results.length + stopped}" failures="${count(report.results, 'failure')}" errors="${stopped}" skipped="${count(report.results, 'skipped')}" time="${seconds(report.durationMs)}">`,
  );
  if (report.unreachable) {
    out.push(`  <testsuite name="pre-flight" tests="1" failures="0" errors="1" skipped="0">`);
    out.push(
      `    <testcase classname="conformance.pre-flight" name="the deployment can be judged"><error type="not judged" message="${xml(report.unreachable)}">${xml(`not judged: ${report.unreachable}`)}</error></testcase>`,
    );
    out.push('  </testsuite>');
  }
  for (const area of AREAS) {
    const results = report.results.filter((r) => r.area === area);
    if (results.length === 0 && (area !== 'drift' || report.unreachable)) continue;
    out.push(
      `  <testsuite name="${area}" tests="${results.length}" failures="${count(results, 'failure')}" skipped="${count(results, 'skipped')}">`,
    );
    for (const r of results) out.push(testCase(r, report));
    if (area === 'drift') out.push(`    <system-out>${xml(driftLines(report).join('\n'))}</system-out>`);
    out.push('  </testsuite>');
  }
  out.push(...reachSuite(report));
  out.push(...coverageSuite(report));
  out.push(...securitySuite(report));
  const since = comparisonLines(report);
  if (since.length > 0) {
    out.push('  <testsuite name="comparison" tests="0" failures="0" skipped="0">');
    out.push(`    <system-out>${xml(since.join('\n'))}</system-out>`);
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/**
 * How the target was reached (proxy origin, CA and certificate files, header names; never a
 * secret) as properties, and `--insecure` said in words where CI shows a suite's output.
 */
function reachSuite(report: Report): string[] {
  const reach = report.target.reach;
  if (!reach) return [];
  const properties: [string, string][] = [
    ...(reach.proxy ? [['proxy', reach.proxy] as [string, string]] : []),
    ...(reach.caFile ? [['ca-file', reach.caFile] as [string, string]] : []),
    ...(reach.insecure ? [['insecure', 'true'] as [string, string]] : []),
    ...(reach.clientCert ? [['client-certificate', reach.clientCert] as [string, string]] : []),
    ...(reach.headers ? [['headers', reach.headers.join(', ')] as [string, string]] : []),
  ];
  return [
    '  <testsuite name="reach" tests="0" failures="0" skipped="0">',
    '    <properties>',
    ...properties.map(([name, value]) => `      <property name="${xml(name)}" value="${xml(value)}"/>`),
    '    </properties>',
    ...(reach.insecure
      ? ['    <system-out>--insecure: TLS certificates were not verified</system-out>']
      : []),
    '  </testsuite>',
  ];
}

/**
 * The coverage as a suite of properties CI can read (seed, sample, statuses per operation, records
 * per requirement, gaps), its lines as system-out.
 */
function coverageSuite(report: Report): string[] {
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
    '  <testsuite name="coverage" tests="0" failures="0" skipped="0">',
    '    <properties>',
    ...properties.map(([name, value]) => `      <property name="${xml(name)}" value="${xml(value)}"/>`),
    '    </properties>',
    `    <system-out>${xml(coverageLines(report).join('\n'))}</system-out>`,
    '  </testsuite>',
  ];
}

/** The OWASP API Security Top 10 (2023) view as properties: `owasp.API1:2023` = `pass: ISOLATION-001, ...`. */
function securitySuite(report: Report): string[] {
  if (!report.security) return [];
  return [
    '  <testsuite name="security" tests="0" failures="0" skipped="0">',
    '    <properties>',
    ...report.security.map(
      (c) =>
        `      <property name="${xml(`owasp.${c.id}`)}" value="${xml(`${c.status}${c.failed.length ? ` (failed: ${c.failed.join(', ')})` : ''}: ${c.name}; ${c.checks.join(', ')}`)}"/>`,
    ),
    '    </properties>',
    `    <system-out>${xml(securityLine(report.security))}</system-out>`,
    '  </testsuite>',
  ];
}

function testCase(r: CheckResult, report: Report): string {
  const open = `    <testcase classname="conformance.${r.area}" name="${xml(`${r.id} ${r.title}`)}" time="${(r.durationMs / 1000).toFixed(3)}">`;
  const body: string[] = [];
  const file = report.expectations?.file ?? 'the expected-failures file';
  if (r.expectedFailure?.state === 'fixed') {
    const message = `listed in ${file} as an expected failure, but it passed: remove the entry`;
    body.push(
      `      <failure type="${r.id}" message="${xml(message)}">${xml(`${message}\nlisted because: ${r.expectedFailure.reason}\nactual: ${r.actual}`)}</failure>`,
    );
  } else if (r.expectedFailure?.state === 'failing') {
    body.push(`      <skipped message="${xml(`expected failure: ${r.expectedFailure.reason}`)}"/>`);
    const repro = r.request ? `\nreproduce: ${r.request.curl}` : '';
    body.push(`      <system-out>${xml(`expected failure (${file}): ${r.actual}${repro}`)}</system-out>`);
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
    body.push(`      <failure type="${r.id}" message="${xml(r.actual)}">${xml(text)}</failure>`);
  } else if (r.status === 'skip' || r.status === 'not-judged') {
    body.push(`      <skipped message="${xml(`${r.status}: ${r.reason ?? ''}`)}"/>`);
  } else if (r.status === 'advisory') {
    body.push(
      `      <system-out>${xml(`advisory: ${r.actual}\n${r.drift ? 'every difference is listed in the drift suite' : r.expected}`)}</system-out>`,
    );
  }
  return body.length ? [open, ...body, '    </testcase>'].join('\n') : `${open}</testcase>`;
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
