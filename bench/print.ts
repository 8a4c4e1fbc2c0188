/** The benchmark's figures as plain-text tables, side by side. */
import { type BenchReport, type LoadComparison, TARGETS, type TargetName } from './figures.ts';
import type { InstructionCount } from './cachegrind.ts';
import type { LoadFigures } from './load.ts';

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

const int = (value: number) => Math.round(value).toLocaleString('en-US');
const ratio = (value: number | undefined) => (value === undefined ? '–' : `${value.toFixed(2)}×`);
const mb = (value: number | undefined) => (value === undefined ? '–' : `${Math.round(value)} MB`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const samples = (median: number, all: number[]) =>
  all.length > 1
    ? `${seconds(median)} (${all.map((ms) => (ms / 1000).toFixed(2)).join(', ')})`
    : seconds(median);

/** CPU µs per request, then requests/s for reference. */
function load(figures: LoadFigures | undefined): string {
  if (!figures) return '–';
  const failed = figures.failures > 0 ? ` (${figures.failures} failed!)` : '';
  return `${figures.cpuUsPerRequest.toFixed(1)} µs (${int(figures.requestsPerSecond)}/s)${failed}`;
}

/** A ratio beside its floor, marked when the floor is not met. */
function judged(value: number | undefined, met: (ratio: number) => boolean): string {
  if (value === undefined) return '–';
  return `${ratio(value)}${met(value) ? '' : ' MISSED'}`;
}

const rowName = (row: LoadComparison) => `${row.dataset} (${int(row.walks)} walks)`;
const bodySent = (row: LoadComparison) =>
  `${(row.bodyBytes / 1024).toFixed(1)} KB ${row.contentEncoding ?? 'identity'}`;

/** CPU time per request: reported beside the instruction counts, never judged. */
function loadTable(rows: readonly LoadComparison[]): string {
  return table(
    [
      'data set',
      'endpoint',
      'body sent',
      ...LOAD_COLUMNS.map(([, title]) => title),
      'ref/Node',
      'ref/Express',
      'ref/Node holding data',
      'ref/Prism',
    ],
    rows.map((row) => [
      rowName(row),
      row.endpoint,
      bodySent(row),
      ...LOAD_COLUMNS.map(([target]) => load(row.figures[target])),
      ratio(row.ratios.nodeFloor),
      ratio(row.ratios.expressFloor),
      ratio(row.ratios.heldNodeFloor),
      ratio(row.ratios.prism),
    ]),
  );
}

/** Thousands of instructions per request. */
const kilo = (count: InstructionCount | undefined) =>
  count === undefined ? '–' : `${(count.perRequest / 1000).toFixed(1)} k`;

/** Instructions per request, and the ratios the targets judge. */
function instructionTable(rows: readonly LoadComparison[]): string {
  const maxNode = TARGETS.maxOverNodeFloor;
  const belowExpress = TARGETS.belowExpressFloor;
  return table(
    [
      'data set',
      'endpoint',
      'body sent',
      'reference',
      'Express floor',
      'Node floor',
      `ref/Node (≤ ${maxNode.toFixed(2)}×)`,
      `ref/Express (< ${belowExpress.toFixed(2)}×)`,
    ],
    rows.map((row) => [
      rowName(row),
      row.endpoint,
      bodySent(row),
      kilo(row.instructions?.reference),
      kilo(row.instructions?.expressFloor),
      kilo(row.instructions?.nodeFloor),
      judged(row.instructionRatios?.nodeFloor, (value) => value <= maxNode),
      judged(row.instructionRatios?.expressFloor, (value) => value < belowExpress),
    ]),
  );
}

const LOAD_COLUMNS: [TargetName, string][] = [
  ['reference', 'reference'],
  ['expressFloor', 'Express floor'],
  ['nodeFloor', 'Node floor'],
  ['heldNodeFloor', 'Node floor holding data'],
  ['prism', 'Prism mock'],
];

export function printReport(report: BenchReport): string {
  const parts = [
    machineLine(report),
    '',
    instructionSection(report),
    '',
    loadSection(report),
    '',
    revalidationSection(report),
    '',
    startupSection(report),
    '',
    fixturesSection(report),
    '',
    conformanceSection(report),
    '',
    'Targets',
    table(
      ['target', 'wanted', 'measured', 'met'],
      report.targets.map((verdict) => [
        verdict.id,
        verdict.target,
        verdict.measured,
        verdict.met ? 'yes' : 'NO',
      ]),
    ),
  ];
  for (const log of report.requestLogs) {
    parts.push(
      `Log: the reference server wrote ${int(log.lines)} request lines on the ${log.dataset} data set ` +
        `(${int(log.measuredRequests)} measured requests, warm-ups and probes on top).`,
    );
  }
  if (report.notes.length > 0) parts.push('', 'Notes', ...report.notes.map((note) => `- ${note}`));
  return parts.join('\n');
}

function machineLine({ machine }: BenchReport): string {
  return (
    `Machine: ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}; load average ` +
    `${machine.loadAverage.start.toFixed(1)} at the start, ${machine.loadAverage.end.toFixed(1)} at the end` +
    // The run itself keeps about two cores busy; only the load before it is someone else's.
    (machine.loadAverage.start > machine.cpus / 2
      ? ' (other work was running when the benchmark started: figures are noisy)'
      : '')
  );
}

function instructionSection({ settings, load }: BenchReport): string {
  const plan = settings.instructions;
  if (!plan)
    return 'Instructions per request: not counted (--skip instructions); no per-request target judged';
  const rows = load.filter((row) => row.dataset === plan.dataset && plan.codings.includes(row.coding));
  return [
    `Instructions per request (judged), counted by Cachegrind: ${int(plan.requests)} requests over one ` +
      `connection between two counts, after ${int(plan.warmupRequests)} warm-up requests of each kind`,
    instructionTable(rows),
  ].join('\n');
}

function loadSection({ settings, load }: BenchReport): string {
  return [
    `CPU time per request (reported, not judged): ${settings.rate} requests/s over ${settings.connections} connections to every target; per target a ${settings.warmupS} s unpaced warm-up and one paced round not kept, then ` +
      `${settings.rounds} rounds of ${settings.durationS} s (order rotating); each cell is the median ` +
      'CPU time of the serving process per request (and requests/s); ratios are CPU per request',
    loadTable(load),
  ].join('\n');
}

function revalidationSection(report: BenchReport): string {
  return [
    'Revalidation (If-None-Match with the ETag of the first answer)',
    table(
      ['data set', 'endpoint', 'Accept-Encoding', 'ETag', 'status'],
      report.revalidation.map((row) => [
        row.dataset,
        row.endpoint,
        row.coding,
        row.etag ?? '–',
        String(row.revalidatedStatus),
      ]),
    ),
  ].join('\n');
}

function startupSection(report: BenchReport): string {
  return [
    'Reference server start-up (to the first HTTP answer; the median, and every sample) and memory',
    table(
      ['data set', 'launch.js', 'in-process', 'RSS started', 'RSS after load', 'peak RSS'],
      report.startup.map((row) => [
        `${row.dataset} (${int(row.walks)} walks)`,
        samples(row.childProcessMs, row.childProcessSamplesMs),
        samples(row.inProcessMs, row.inProcessSamplesMs),
        mb(row.rssAtStartMb),
        mb(row.rssAfterLoadMb),
        mb(row.peakRssMb),
      ]),
    ),
  ].join('\n');
}

function fixturesSection({ fixtures }: BenchReport): string {
  return [
    'Fixture generation (a fresh process per size)',
    table(
      ['walks', 'stops', 'time', 'peak RSS'],
      fixtures.sizes.map((row) => [
        int(row.walks),
        int(row.stops),
        seconds(row.generationMs),
        mb(row.peakRssMb),
      ]),
    ),
    table(
      ['step', 'size ×', 'time ×', 'memory ×', 'ms per 1k walks', 'MB per 1k walks', 'linear'],
      fixtures.growth.map((step) => [
        `${int(step.fromWalks)} → ${int(step.toWalks)}`,
        step.sizeFactor.toFixed(1),
        step.timeFactor.toFixed(2),
        step.memoryFactor.toFixed(2),
        step.marginalMsPer1k.toFixed(1),
        step.marginalMbPer1k.toFixed(1),
        step.linear ? 'yes' : 'NO',
      ]),
    ),
  ].join('\n');
}

function conformanceSection(report: BenchReport): string {
  return [
    'Conformance run against the local reference server (CLI spawn to exit)',
    table(
      ['scenario', 'wall', 'requests', 'verdict', 'exit'],
      report.conformance.map((run) => [
        run.delayMs > 0 ? `+${run.delayMs} ms per answer` : 'direct',
        seconds(run.wallMs),
        String(run.requests),
        run.verdict,
        String(run.exitCode),
      ]),
    ),
  ].join('\n');
}
