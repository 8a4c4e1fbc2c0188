/**
 * The console report, written for the person reading it: on a pass, the summary, the coverage and
 * where the reports went; on a failure, each failing requirement once with at most a few examples
 * (the file reports hold them all). `--quiet` keeps only the failures and the verdict; `--verbose`
 * shows every section and every example. Colour only when the CLI says the output is a terminal.
 */
import { securityLine } from '../core/security-view.ts';
import { RESULT_CLASSES } from '../../spec/facts.ts';
import type { CheckResult, Report } from '../core/report-model.ts';
import { AREAS } from '../core/report-model.ts';
import * as sections from './sections.ts';
import {
  comparisonLines,
  decisionLines,
  driftLines,
  expectationLines,
  citationOf,
  runText,
  specJudged,
} from './sections.ts';

/** `--quiet`: the summary line and the failures; `--verbose`: every section, every example. */
export type Verbosity = 'quiet' | 'normal' | 'verbose';

export interface ConsoleOptions {
  verbosity?: Verbosity;
  color?: boolean;
  /** Every file the run wrote: listed at the end, and named where examples are cut short. */
  reportPaths?: string[];
}

/** Examples (details, drift findings) shown per failure before "… and N more". */
export const EXAMPLES = 5;

interface Paint {
  bad: (text: string) => string;
  good: (text: string) => string;
  note: (text: string) => string;
}

const ansi = (code: number) => (text: string) => `\u001b[${code}m${text}\u001b[0m`;
const plain = (text: string) => text;
const paintOf = (color: boolean): Paint =>
  color ? { bad: ansi(31), good: ansi(32), note: ansi(33) } : { bad: plain, good: plain, note: plain };

export function consoleReport(report: Report, options: ConsoleOptions = {}): string {
  const verbosity = options.verbosity ?? 'normal';
  const paint = paintOf(options.color === true);
  const more = moreHint(options.reportPaths ?? [], verbosity);
  const lines: string[] = [];
  if (verbosity !== 'quiet') lines.push(...headerLines(report, verbosity));
  if (!report.unreachable) {
    if (verbosity === 'verbose') lines.push('', areaTable(report.results));
    lines.push(...failureLines(report, verbosity, paint, more));
    if (verbosity !== 'quiet') lines.push(...middleLines(report, verbosity, more));
    if (verbosity !== 'quiet' && report.security) lines.push('', securityLine(report.security));
  }
  // --quiet keeps no header, but an unverified certificate is said on every run.
  if (verbosity === 'quiet' && report.target.reach?.insecure) {
    lines.push('', paint.note('--insecure: TLS certificates were not verified'));
  }
  lines.push('', verdictLine(report, paint));
  lines.push(...pathLines(options.reportPaths ?? []));
  return `${(lines[0] === '' ? lines.slice(1) : lines).join('\n')}\n`;
}

function headerLines(report: Report, verbosity: Verbosity): string[] {
  const { target } = report;
  const where = target.embedded ? `${target.baseUrl} (embedded reference server)` : target.baseUrl;
  const lines = [
    `Canvassing Read API conformance — ${where}`,
    `  ${runText(report)} · ${(report.durationMs / 1000).toFixed(1)} s · ${report.tool.name} ${report.tool.version}`,
  ];
  const reach = report.target.reach;
  const via = [
    reach?.proxy ? `proxy ${reach.proxy}` : '',
    reach?.caFile ? `CA ${reach.caFile}` : '',
    reach?.clientCert ? `client certificate ${reach.clientCert}` : '',
    reach?.headers ? `headers ${reach.headers.join(', ')}` : '',
  ].filter(Boolean);
  if (via.length > 0) lines.push(`  reached through ${via.join(' · ')}`);
  const pre = report.preflight;
  if (pre && verbosity === 'verbose') {
    lines.push(
      `  pre-flight: ${pre.requests} request(s), ${pre.durationMs} ms (its list is the one the checks use)`,
    );
  }
  for (const warning of pre?.warnings ?? []) lines.push(`  warning: ${warning}`);
  return lines;
}

function failureLines(report: Report, verbosity: Verbosity, paint: Paint, more: More): string[] {
  const failures = report.results.filter(
    (r) => r.status === 'fail' && r.expectedFailure?.state !== 'failing',
  );
  if (failures.length === 0) return [];
  const lines = ['', paint.bad('FAILURES')];
  for (const result of failures) lines.push(...failureBlock(result, report, verbosity, paint, more));
  return lines;
}

function middleLines(report: Report, verbosity: Verbosity, more: More): string[] {
  const lines = [...expectationLines(report)];
  const advisories = report.results.filter((r) => r.status === 'advisory');
  const notRun = report.results.filter((r) => r.status === 'skip' || r.status === 'not-judged');
  if (verbosity === 'verbose') {
    if (advisories.length > 0) {
      lines.push('', 'ADVISORY (where the written spec is silent, and drift unless --strict)');
      for (const r of advisories) {
        lines.push(`  ~ ${r.id} ${r.title}: ${r.actual}`);
        lines.push(`      ${r.drift ? 'every difference is listed under DRIFT' : r.expected}`);
      }
    }
    if (notRun.length > 0) {
      lines.push('', 'SKIPPED AND INCONCLUSIVE');
      for (const r of notRun) lines.push(`  - ${r.id} ${r.title} [${r.status}]: ${r.reason ?? ''}`);
    }
  } else if (advisories.length + notRun.length > 0) {
    lines.push(
      '',
      `${advisories.length} advisory, ${notRun.length} skipped or not judged (--verbose says what and why)`,
    );
  }
  lines.push('', ...driftSummary(report, verbosity, more));
  const decisions = decisionLines(report);
  if (report.target.strict || verbosity === 'verbose') lines.push(...decisions);
  else if (decisions.length > 1) lines.push(`${decisions[0] ?? ''} (--strict names them)`);
  lines.push(...coverageSection(report, verbosity));
  const since = comparisonLines(report);
  if (since.length > 0) lines.push('', ...since);
  return lines;
}

/** The drift in full when it fails the run or under --verbose (examples capped), else one line. */
function driftSummary(report: Report, verbosity: Verbosity, more: More): string[] {
  const { drift } = report;
  const failing = report.results.some((r) => r.drift && r.status === 'fail');
  if (drift.findings.length === 0 || verbosity === 'verbose') return driftLines(report);
  if (!failing) {
    return [
      `DRIFT: ${drift.findings.length} difference(s) from ${specJudged(report)}, advisory (--verbose or the reports list them)`,
    ];
  }
  const shown = drift.findings.slice(0, EXAMPLES);
  const lines = driftLines({ ...report, drift: { ...drift, findings: shown, omitted: 0 } });
  const hidden = drift.findings.length - shown.length + drift.omitted;
  if (hidden > 0) lines.push(`  ${more(hidden)}`);
  return lines;
}

/**
 * The coverage of `reporters/sections.ts` (`coverageLines`, looked up so the console works before
 * that module has it): the headline, the statuses per operation and the gaps; the count per
 * requirement is a wall of lines, left to --verbose and the file reports.
 */
function coverageSection(report: Report, verbosity: Verbosity): string[] {
  const coverageLines = (sections as { coverageLines?: (report: Report) => string[] }).coverageLines;
  const lines = coverageLines ? coverageLines(report) : [];
  const from = lines.indexOf(PER_REQUIREMENT);
  if (verbosity === 'verbose' || from === -1) return lines;
  const to = lines.findIndex((line, i) => i > from && !line.startsWith('    '));
  return [...lines.slice(0, from), ...(to === -1 ? [] : lines.slice(to))];
}

const PER_REQUIREMENT = '  judged per requirement:';

function verdictLine(report: Report, paint: Paint): string {
  const { summary } = report;
  if (report.unreachable) return `Verdict: ${paint.bad('NOT JUDGED')} — ${report.unreachable.split('\n')[0]}`;
  const expectations = report.expectations
    ? `, ${summary.expectedFailures} expected failure(s), ${summary.fixedExpectedFailures} expected failure(s) no longer failing`
    : '';
  // Required rules left unjudged, none broken: the run cannot say pass (exit 2). Answers over the
  // size cap are the commonest cause worth naming here (D-RESPONSE-CAP); the others the line below says.
  const unjudged =
    summary.verdict === 'not judged' || (summary.verdict === 'pass' && report.overCap !== undefined);
  const verdict = unjudged
    ? paint.bad(
        report.overCap !== undefined
          ? `NOT JUDGED (${report.overCap.length} answer(s) larger than --max-response-bytes)`
          : `NOT JUDGED (${summary.requiredNotJudged} required rule(s) not judged)`,
      )
    : summary.verdict === 'pass'
      ? paint.good('PASS')
      : paint.bad('FAIL');
  return (
    `Verdict: ${verdict} — ${summary.requiredFailures} required check(s) failed${expectations} ` +
    `(${summary.pass} passed, ${summary.fail} failed, ${summary.advisory} advisory, ${summary.skip} skipped, ${summary['not-judged']} not judged)`
  );
}

export function pathLines(paths: readonly string[]): string[] {
  return paths.map((path) => `report: ${path}`);
}

/** How a report says how many examples it left out, and where they all are. */
type More = (hidden: number, jsonOnly?: boolean) => string;

/**
 * "… and N more (see PATH)": the first report that holds every example, else --verbose. Beyond the
 * findings a result holds in memory, only the JSON report lists them all.
 */
function moreHint(paths: readonly string[], verbosity: Verbosity): More {
  const json = paths.find((p) => p.endsWith('.json'));
  const full = json ?? paths.find((p) => p.endsWith('.html')) ?? paths[0];
  const where = full ? `see ${full}` : verbosity === 'verbose' ? 'left out' : '--verbose shows them';
  return (hidden, jsonOnly = false) => {
    if (!jsonOnly) return `… and ${hidden} more (${where})`;
    return `… and ${hidden} more (${json ? `see ${json}` : 'the JSON report lists every one: --reporter json'})`;
  };
}

function areaTable(results: CheckResult[]): string {
  const header = ['area'.padEnd(13), ...RESULT_CLASSES.map((c) => c.padStart(c.length + 1))].join('');
  const rows = AREAS.filter((area) => results.some((r) => r.area === area)).map((area) => {
    const mine = results.filter((r) => r.area === area);
    return [
      area.padEnd(13),
      ...RESULT_CLASSES.map((c) => String(mine.filter((r) => r.status === c).length).padStart(c.length + 1)),
    ].join('');
  });
  return [header, ...rows].join('\n');
}

function failureBlock(
  r: CheckResult,
  report: Report,
  verbosity: Verbosity,
  paint: Paint,
  more: More,
): string[] {
  const block = [
    paint.bad(`✗ ${r.id} [${r.effectiveLevel}, ${r.section}] ${r.title}`),
    `    expected:  ${r.expected}`,
    `    actual:    ${r.actual}`,
  ];
  if (r.hint) block.push(`    hint:      ${r.hint}`);
  block.push(`    cites:     ${citationOf(r, report)}`);
  if (r.drift) {
    block.push('    details:   every difference is listed under DRIFT');
  } else if (r.details && r.details.length > 1) {
    const shown = verbosity === 'verbose' ? r.details : r.details.slice(0, EXAMPLES);
    const total = r.findings ?? r.details.length;
    block.push('    details:');
    for (const d of shown) block.push(`      - ${d}`);
    if (shown.length < total) block.push(`      ${more(total - shown.length, r.findings !== undefined)}`);
  }
  if (r.request) block.push(`    reproduce: ${r.request.curl}`);
  return block;
}
