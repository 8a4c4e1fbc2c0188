/** JUnit XML for CI: one test suite per area, one test case per requirement. */
import type { CheckResult, Report } from '../types.ts';
import { AREAS } from '../types.ts';

export function junitReport(report: Report): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const { summary } = report;
  out.push(
    `<testsuites name="canvassing-conformance" tests="${summary.total}" failures="${summary.fail}" skipped="${summary.skip + summary.inconclusive}" time="${seconds(report.durationMs)}">`,
  );
  if (report.unreachable) {
    out.push(`  <testsuite name="target" tests="1" failures="1" skipped="0">`);
    out.push(
      `    <testcase classname="conformance.target" name="reachable"><failure message="${xml(report.unreachable)}"/></testcase>`,
    );
    out.push('  </testsuite>');
  }
  for (const area of AREAS) {
    const results = report.results.filter((r) => r.area === area);
    if (results.length === 0) continue;
    const failures = results.filter((r) => r.status === 'fail').length;
    const skipped = results.filter((r) => r.status === 'skip' || r.status === 'inconclusive').length;
    out.push(
      `  <testsuite name="${area}" tests="${results.length}" failures="${failures}" skipped="${skipped}">`,
    );
    for (const r of results) out.push(testCase(r));
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

function testCase(r: CheckResult): string {
  const open = `    <testcase classname="conformance.${r.area}" name="${xml(`${r.id} ${r.title}`)}" time="${(r.durationMs / 1000).toFixed(3)}">`;
  const body: string[] = [];
  if (r.status === 'fail') {
    const text = [
      `expected: ${r.expected}`,
      `actual: ${r.actual}`,
      r.hint ? `hint: ${r.hint}` : '',
      ...(r.details ?? []).map((d) => `- ${d}`),
      r.request ? `reproduce: ${r.request.curl}` : '',
    ]
      .filter(Boolean)
      .join('\n');
    body.push(`      <failure type="${r.id}" message="${xml(r.actual)}">${xml(text)}</failure>`);
  } else if (r.status === 'skip' || r.status === 'inconclusive') {
    body.push(`      <skipped message="${xml(`${r.status}: ${r.reason ?? ''}`)}"/>`);
  } else if (r.status === 'advisory') {
    body.push(
      `      <system-out>${xml(`advisory: ${r.actual}\n${r.expected}${(r.details ?? []).map((d) => `\n- ${d}`).join('')}`)}</system-out>`,
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
