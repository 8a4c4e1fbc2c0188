/**
 * The report sections the text reporters share (console, and JUnit's system-out): the coverage, the
 * drift, the expected failures and the comparison with a previous report, as plain lines.
 */
import type { RequestInfo, RetryReason } from '../core/exchange.ts';
import type {
  CheckChange,
  CheckResult,
  OperationCoverage,
  DriftFinding,
  Coverage,
  Judged,
  Report,
  TrafficCoverage,
} from '../core/report-model.ts';
import { LIVE_SPEC_PATH } from '../../spec/facts.ts';

/**
 * "profile live · strict off · 120 requests (budget 1500)", with the attempts tried again and the
 * pace when there were any ("· 6 retried: 5 after a 429, 1 after a reset · 3 answered 429, kept to
 * 9/s"), or what a `--traffic` run read.
 */
export function runText(report: Report): string {
  const { target, requests } = report;
  const traffic = report.coverage?.traffic;
  if (traffic)
    return `recorded traffic ${traffic.file}, nothing sent · strict ${target.strict ? 'on' : 'off'}`;
  return [
    `profile ${target.profile} · strict ${target.strict ? 'on' : 'off'} · ${requests.sent} requests (budget ${requests.budget})`,
    ...retriedText(requests.retried),
    ...paceText(requests.rateLimit),
  ].join(' · ');
}

const RETRIED_FOR: Record<RetryReason, string> = {
  '429': 'after a 429',
  '503': 'after a 503',
  reset: 'after a reset',
  local: 'after a local connection error',
};

function retriedText(retried: Report['requests']['retried']): string[] {
  const parts = Object.entries(retried ?? {}).map(
    ([reason, n]) => `${n} ${RETRIED_FOR[reason as RetryReason]}`,
  );
  const total = Object.values(retried ?? {}).reduce((sum, n) => sum + n, 0);
  return total > 0 ? [`${total} retried: ${parts.join(', ')}`] : [];
}

function paceText(pace: Report['requests']['rateLimit']): string[] {
  if (!pace) return [];
  const parts = [
    ...(pace.asked ? [`--rate-limit ${pace.asked}`] : []),
    ...(pace.throttled > 0 ? [`${pace.throttled} answered 429`] : []),
    ...(pace.learntPerSecond !== undefined ? [`kept to ${pace.learntPerSecond}/s`] : []),
    ...(pace.learntPerMinute !== undefined ? [`kept to ${pace.learntPerMinute}/min`] : []),
  ];
  return parts.length > 0 ? [parts.join(', ')] : [];
}

/**
 * `--traffic`: "judged 480 of 485 exchanges of this API (97% of the file's 500 entries were this
 * API's); 5 not judged: no body recorded".
 */
function trafficText(traffic: TrafficCoverage): string {
  const share = traffic.entries === 0 ? 0 : Math.round((100 * traffic.ofApi) / traffic.entries);
  const notJudged = traffic.notJudged.map((n) => `${n.entries} ${n.reason}`).join(', ');
  const bodyless = traffic.bodyless
    ? `; ${traffic.bodyless} recorded without a body, judged on status and headers`
    : '';
  return `judged ${traffic.judged} of ${traffic.ofApi} exchanges of this API (${share}% of the file's ${traffic.entries} entries were this API's)${bodyless}${notJudged ? `; not judged: ${notJudged}` : ''}`;
}

/** "seed 20261124, every record judged" or "seed 1, sampled 20 of 240 records per sweep (not a full run)". */
export function coverageHeadline(coverage: Coverage): string {
  if (coverage.traffic) return trafficText(coverage.traffic);
  const sampled = coverage.sampled
    ? `sampled ${coverage.sampled.n} of ${coverage.sampled.of} records per sweep (--sample: not a full run)`
    : 'every record judged';
  return `seed ${coverage.seed}, ${sampled}`;
}

/** "200 listed items judged (200 requests)" or "20 of 200 listed items judged (20 requests)": the rule's own unit. */
export function judgedText(judged: Judged): string {
  const of = judged.of !== undefined ? ` of ${judged.of}` : '';
  if (judged.unit === 'answers' || judged.unit === 'requests')
    return `${judged.records}${of} ${judged.unit} judged`;
  const requests = judged.requests === 1 ? '1 request' : `${judged.requests} requests`;
  return `${judged.records}${of} ${judged.unit} judged (${requests})`;
}

/** Per operation, every documented status and whether the run observed it (`✓ n` or `–`). */
export function statusCoverageText(operation: Coverage['operations'][number]): string {
  const documented = operation.statuses.map((s) => `${s.status} ${s.observed > 0 ? `✓ ${s.observed}` : '–'}`);
  const other = operation.undocumented.map((s) => `${s.status} undocumented ✗ ${s.observed}`);
  return [...documented, ...other].join(', ');
}

/** The coverage section: seed and sample, statuses per operation, records per requirement, gaps. */
export function coverageLines(report: Report): string[] {
  const coverage = report.coverage;
  if (!coverage) return [];
  const lines = [`COVERAGE (${coverageHeadline(coverage)})`];
  for (const operation of coverage.operations) {
    lines.push(
      `  ${operation.method} ${operation.path} (${operation.operationId}): ${statusCoverageText(operation)}`,
    );
  }
  const counted = coverage.requirements.filter((r) => r.records > 0);
  if (counted.length > 0) {
    lines.push('  judged per requirement:');
    for (const r of counted) lines.push(`    ${r.id}: ${judgedText(r)}`);
  }
  if (coverage.gaps.length > 0) {
    lines.push('  not covered:');
    for (const gap of coverage.gaps) lines.push(`    ${gap}`);
  } else {
    lines.push('  not covered: nothing (every selected check ran on what it needed)');
  }
  return lines;
}

export interface DriftGroup {
  operationId: string;
  method: string;
  path: string;
  status: number;
  findings: DriftFinding[];
}

/** Findings grouped by operation and status, in the (spec) order the report lists them. */
export function groupDrift(findings: readonly DriftFinding[]): DriftGroup[] {
  const groups: DriftGroup[] = [];
  for (const f of findings) {
    const last = groups.at(-1);
    if (last && last.operationId === f.operationId && last.status === f.status) last.findings.push(f);
    else
      groups.push({
        operationId: f.operationId,
        method: f.method,
        path: f.path,
        status: f.status,
        findings: [f],
      });
  }
  return groups;
}

export const answers = (f: Pick<DriftFinding, 'responses' | 'of'>): string =>
  `${f.responses} of ${f.of} answer${f.of === 1 ? '' : 's'}`;

/** The spec the run judged against, as a tester named it: the project's own by its place in the repository. */
export function specJudged(report: Pick<Report, 'spec'>): string {
  return report.spec.path === LIVE_SPEC_PATH ? 'spec/openapi.yaml' : report.spec.path;
}

/** The operation of the spec a request was for: its method, and its path ending as a template says. */
function operationOf(
  request: Pick<RequestInfo, 'method' | 'url'>,
  operations: readonly Pick<OperationCoverage, 'operationId' | 'method' | 'path'>[],
): Pick<OperationCoverage, 'operationId' | 'method' | 'path'> | undefined {
  const path = URL.canParse(request.url) ? new URL(request.url).pathname : request.url.split('?')[0];
  return operations.find((op) => {
    if (op.method.toUpperCase() !== request.method.toUpperCase()) return false;
    const pattern = op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
    return new RegExp(`${pattern}$`).test(path ?? '');
  });
}

/**
 * Where a result leads in the repository: the OpenAPI operation its evidence was an answer of,
 * and the decision of spec/DECISIONS.md it reports on; the written spec's section is a label.
 */
export function citationOf(
  result: Pick<CheckResult, 'section' | 'decision' | 'request'>,
  report: Pick<Report, 'spec'> & {
    coverage?: { operations: readonly Pick<OperationCoverage, 'operationId' | 'method' | 'path'>[] };
  },
): string {
  const operations = report.coverage?.operations ?? [];
  const op = result.request ? operationOf(result.request, operations) : undefined;
  return [
    ...(op ? [`${op.operationId} (${op.method.toUpperCase()} ${op.path}) in ${specJudged(report)}`] : []),
    ...(result.decision ? [`${result.decision} in spec/DECISIONS.md`] : []),
    `written spec ${result.section}`,
  ].join('; ');
}

export function driftLines(report: Report): string[] {
  const { drift } = report;
  const spec = specJudged(report);
  if (drift.findings.length === 0) {
    return [`DRIFT: none — the ${drift.judged} answers of documented operations match ${spec}`];
  }
  const lines = [
    `DRIFT (${drift.findings.length} difference(s) from ${spec} in ${drift.judged} answers, each listed once)`,
  ];
  for (const group of groupDrift(drift.findings)) {
    lines.push(`  ${group.method} ${group.path} (${group.operationId}) → ${group.status}`);
    let lastCurl = '';
    for (const f of group.findings) {
      const place = f.where === f.kind ? '' : `${f.where}: `;
      lines.push(`    ${f.kind.padEnd(13)} ${place}${f.message} — ${answers(f)} [${f.check}]`);
      if (f.example.curl !== lastCurl) lines.push(`        e.g. ${f.example.curl}`);
      lastCurl = f.example.curl;
    }
  }
  if (drift.omitted > 0) lines.push(`  … and ${drift.omitted} more difference(s), left out`);
  return lines;
}

export function expectationLines(report: Report): string[] {
  const expectations = report.expectations;
  if (!expectations) return [];
  const lines: string[] = [];
  const byId = new Map(report.results.map((r) => [r.id, r]));
  const of = (state: string) => expectations.entries.filter((e) => e.state === state);
  const fixed = of('fixed');
  if (fixed.length > 0) {
    lines.push(
      '',
      `EXPECTED FAILURES THAT NO LONGER FAIL (remove them from ${expectations.file}; each fails the run)`,
    );
    for (const e of fixed) {
      lines.push(`  ✗ ${e.id} ${byId.get(e.id)?.title ?? ''}: passed (${byId.get(e.id)?.actual ?? ''})`);
      lines.push(`      listed because: ${e.reason}`);
    }
  }
  const failing = of('failing');
  if (failing.length > 0) {
    lines.push('', `EXPECTED FAILURES (listed in ${expectations.file}: reported, not failing the run)`);
    for (const e of failing) {
      const r = byId.get(e.id);
      lines.push(`  ≈ ${e.id} ${r?.title ?? ''}: ${r?.actual ?? ''}`);
      lines.push(`      reason: ${e.reason}`);
      if (r?.request) lines.push(`      reproduce: ${r.request.curl}`);
    }
  }
  const notRun = of('not-run');
  if (notRun.length > 0) {
    lines.push('', `LISTED AS EXPECTED FAILURES BUT NOT RUN (${expectations.file}; the entries stay)`);
    for (const e of notRun) {
      const r = byId.get(e.id);
      lines.push(`  - ${e.id} [${r ? `${r.status}: ${r.reason ?? ''}` : 'not selected'}]`);
    }
  }
  return lines;
}

export function comparisonLines(report: Report): string[] {
  const c = report.comparison;
  if (!c) return [];
  const when = [c.previous.startedAt, c.previous.baseUrl].filter(Boolean).join(', ');
  const lines = [`SINCE ${c.previous.file}${when ? ` (${when})` : ''}`];
  if (c.previous.unreachable)
    lines.push(`  the previous run could not reach its target: ${c.previous.unreachable}`);
  const checks = (label: string, changes: CheckChange[]) => {
    if (changes.length === 0) return;
    lines.push(`  ${label}:`);
    for (const ch of changes) {
      const was =
        ch.wasActual !== undefined
          ? ` (was: ${ch.wasActual})`
          : ch.was === 'absent'
            ? ' (new check)'
            : ` (was ${ch.was})`;
      lines.push(`    ${ch.id} ${ch.title}: ${ch.actual}${was}`);
    }
  };
  checks('newly failing', c.newlyFailing);
  checks('newly passing', c.newlyPassing);
  checks('new advisories', c.newAdvisories);
  const drift = (label: string, findings: DriftFinding[]) => {
    if (findings.length === 0) return;
    lines.push(`  ${label}:`);
    for (const f of findings) lines.push(`    ${f.operationId} ${f.status} ${f.where}: ${f.message}`);
  };
  drift('new drift', c.newDrift);
  drift('drift gone', c.goneDrift);
  if (!c.driftCompared) lines.push('  drift not compared: the previous report has no drift section');
  if (c.stillFailing.length > 0) lines.push(`  still failing: ${c.stillFailing.join(', ')}`);
  const changed =
    c.newlyFailing.length +
    c.newlyPassing.length +
    c.newAdvisories.length +
    c.newDrift.length +
    c.goneDrift.length;
  if (changed === 0) lines.push('  nothing changed');
  return lines;
}

/**
 * The open points (spec/DECISIONS.md) this deployment decided otherwise than the project, each
 * once, with the check that showed it and what it answered. Deciding otherwise is conformant:
 * these lines inform, they never fail a run.
 */
export function decisionLines(report: Report): string[] {
  const seen = new Map<string, string>();
  for (const result of report.results) {
    for (const id of result.differsFrom ?? []) {
      if (!seen.has(id)) seen.set(id, `  ≠ ${id} (${result.id}): ${result.actual}`);
    }
  }
  if (seen.size === 0)
    return ['DECISIONS: every open point this run could see is decided as in spec/DECISIONS.md'];
  return [
    `DECISIONS: ${seen.size} open point(s) decided otherwise than spec/DECISIONS.md (conformant; not failing)`,
    ...[...seen.keys()].sort().map((id) => seen.get(id) as string),
  ];
}
