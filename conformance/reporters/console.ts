/**
 * The console report: a summary per area, every failure with what it takes to reproduce it, the
 * expected failures, advisories, the drift, and what changed since a previous report.
 */
import type { CheckResult, Report } from '../types.ts';
import { AREAS } from '../types.ts';
import { comparisonLines, driftLines, expectationLines } from './sections.ts';

const COLUMNS = ['pass', 'fail', 'skip', 'advisory', 'inconclusive'] as const;

export function consoleReport(report: Report): string {
  const lines: string[] = [];
  const { target, summary } = report;
  const where = target.embedded ? `${target.baseUrl} (embedded reference server)` : target.baseUrl;
  lines.push(`Canvassing Read API conformance — ${where}`);
  lines.push(
    `  profile ${target.profile} · strict ${target.strict ? 'on' : 'off'} · ${report.requests.sent} requests (budget ${report.requests.budget}) · ${(report.durationMs / 1000).toFixed(1)} s · ${report.tool.name} ${report.tool.version}`,
  );
  if (report.unreachable) {
    lines.push('', `UNREACHABLE: ${report.unreachable}`, 'No check was run.');
    return `${lines.join('\n')}\n`;
  }
  lines.push('', areaTable(report.results));

  const failures = report.results.filter(
    (r) => r.status === 'fail' && r.expectedFailure?.state !== 'failing',
  );
  if (failures.length > 0) {
    lines.push('', 'FAILURES');
    for (const result of failures) lines.push(...failureBlock(result));
  }
  lines.push(...expectationLines(report));
  const advisories = report.results.filter((r) => r.status === 'advisory');
  if (advisories.length > 0) {
    lines.push('', 'ADVISORY (where the written spec is silent, and drift unless --strict)');
    for (const r of advisories) {
      lines.push(`  ~ ${r.id} ${r.title}: ${r.actual}`);
      lines.push(`      ${r.drift ? 'every difference is listed under DRIFT' : r.expected}`);
    }
  }
  const notRun = report.results.filter((r) => r.status === 'skip' || r.status === 'inconclusive');
  if (notRun.length > 0) {
    lines.push('', 'SKIPPED AND INCONCLUSIVE');
    for (const r of notRun) lines.push(`  - ${r.id} ${r.title} [${r.status}]: ${r.reason ?? ''}`);
  }
  lines.push('', ...driftLines(report));
  const since = comparisonLines(report);
  if (since.length > 0) lines.push('', ...since);
  const expectations = report.expectations
    ? `, ${summary.expectedFailures} expected failure(s), ${summary.fixedExpectedFailures} expected failure(s) no longer failing`
    : '';
  lines.push(
    '',
    `Verdict: ${summary.verdict.toUpperCase()} — ${summary.requiredFailures} required check(s) failed${expectations} ` +
      `(${summary.pass} passed, ${summary.fail} failed, ${summary.advisory} advisory, ${summary.skip} skipped, ${summary.inconclusive} inconclusive)`,
  );
  return `${lines.join('\n')}\n`;
}

function areaTable(results: CheckResult[]): string {
  const header = ['area'.padEnd(13), ...COLUMNS.map((c) => c.padStart(c.length + 1))].join('');
  const rows = AREAS.filter((area) => results.some((r) => r.area === area)).map((area) => {
    const mine = results.filter((r) => r.area === area);
    return [
      area.padEnd(13),
      ...COLUMNS.map((c) => String(mine.filter((r) => r.status === c).length).padStart(c.length + 1)),
    ].join('');
  });
  return [header, ...rows].join('\n');
}

function failureBlock(r: CheckResult): string[] {
  const block = [
    `✗ ${r.id} [${r.effectiveLevel}, ${r.section}] ${r.title}`,
    `    expected:  ${r.expected}`,
    `    actual:    ${r.actual}`,
  ];
  if (r.hint) block.push(`    hint:      ${r.hint}`);
  if (r.drift) {
    block.push('    details:   every difference is listed under DRIFT');
  } else if (r.details && r.details.length > 1) {
    block.push('    details:');
    for (const d of r.details) block.push(`      - ${d}`);
  }
  if (r.request) block.push(`    reproduce: ${r.request.curl}`);
  return block;
}
