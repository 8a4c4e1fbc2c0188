/**
 * The benchmark's figures as data, and everything computed from measurements: ratios, growth
 * factors and the verdict on each target. Pure functions, so a test can check them on numbers it
 * chose.
 */
import { median } from '../measure/statistics.ts';
import type { InstructionCount } from './cachegrind.ts';
import type { LoadFigures } from './load.ts';

export const TARGETS = {
  /** Reference instructions per request ÷ the Node floor's, per endpoint and coding: at most this. */
  maxOverNodeFloor: 1.5,
  /** Reference instructions per request ÷ the Express floor's: below this. */
  belowExpressFloor: 1.0,
  /** Start-up on the demo data set, child process and in-process. */
  maxDemoStartupMs: 1_000,
  /** 100,000-walk data set. */
  maxGenerationMs: 20_000,
  maxGenerationPeakRssMb: 1_536,
  /** A step to a size `k` times larger may cost at most `k × 1.25` times as much. */
  maxGrowthOverSize: 1.25,
  /** A default run judges every record of the demo data set: CLI spawn to exit, and its requests. */
  maxConformanceMs: 5_000,
  maxDelayedConformanceMs: 12_000,
  maxConformanceRequests: 600,
  /**
   * Against a per-key limit: the run's wall time ÷ its floor (requests ÷ the allowed rate) at most
   * this. The run keeps 85 % of what a key got through (conformance/pace.ts), 8 of 10 a second, so
   * 1.25 is the least it can be; the lessons' pauses add the rest.
   */
  maxOverRateFloor: 1.6,
  /** Against a per-key limit: the share of the run's requests answered 429, below this. */
  maxThrottledShare: 0.05,
} as const;

export type Endpoint = 'list' | 'detail';

/**
 * The `Accept-Encoding` a load run sends. `gzip` is what HTTP clients send unless told otherwise
 * (undici's fetch, axios, Python requests, browsers all offer gzip), so the targets are judged on
 * it; `identity` runs the same endpoints uncompressed, for comparison.
 */
export const CODINGS = { gzip: 'gzip, deflate, br', identity: 'identity' } as const;
export type Coding = keyof typeof CODINGS;
/** `heldNodeFloor`: the Node floor holding the data set in its heap (large data sets only), reported, not judged. */
export type TargetName = 'reference' | 'expressFloor' | 'nodeFloor' | 'heldNodeFloor' | 'prism';

export interface LoadComparison {
  dataset: string;
  walks: number;
  endpoint: Endpoint;
  path: string;
  /** The `Accept-Encoding` every target was sent (`CODINGS[coding]`). */
  coding: Coding;
  /** The reference server's `Content-Encoding`, if any (the floors send the same). */
  contentEncoding: string | undefined;
  /** Size of the reference server's body as sent (what the floors serve too). */
  bodyBytes: number;
  figures: Partial<Record<TargetName, LoadFigures>>;
  /** The reference server's CPU per request ÷ the other target's: reported, not judged. */
  ratios: Partial<Record<Exclude<TargetName, 'reference'>, number>>;
  /** Instructions per request counted by Cachegrind, on the data set counted (`settings.instructions`). */
  instructions?: Partial<Record<CountedTarget, InstructionCount>>;
  /** The reference server's instructions per request ÷ each floor's: what the targets judge. */
  instructionRatios?: Partial<Record<Exclude<CountedTarget, 'reference'>, number>>;
}

/** The targets whose instructions are counted. */
export type CountedTarget = 'reference' | 'expressFloor' | 'nodeFloor';

/** The reference server's instructions per request ÷ each floor's. */
export function instructionRatiosOf(
  counts: Partial<Record<CountedTarget, InstructionCount>>,
): NonNullable<LoadComparison['instructionRatios']> {
  const ours = counts.reference?.perRequest;
  const ratios: NonNullable<LoadComparison['instructionRatios']> = {};
  if (ours === undefined) return ratios;
  for (const floor of ['expressFloor', 'nodeFloor'] as const) {
    const theirs = counts[floor]?.perRequest;
    if (theirs !== undefined && theirs > 0) ratios[floor] = ours / theirs;
  }
  return ratios;
}

export interface RevalidationFigures {
  dataset: string;
  endpoint: Endpoint;
  coding: Coding;
  etag: string | undefined;
  /** Status of a second request carrying `If-None-Match: <etag>`. */
  revalidatedStatus: number;
}

export interface StartupFigures {
  dataset: string;
  walks: number;
  /** `node reference-server/launch.js` (what `npm run reference-server` runs): spawn to first HTTP answer, median. */
  childProcessMs: number;
  childProcessSamplesMs: number[];
  /** Generate + `createApp` + listen + first answer inside one process (modules already loaded), median. */
  inProcessMs: number;
  inProcessSamplesMs: number[];
  /** Resident memory of the serving process once started, and after the load runs. */
  rssAtStartMb: number | undefined;
  rssAfterLoadMb: number | undefined;
  peakRssMb: number | undefined;
}

export interface GenerationFigures {
  walks: number;
  stops: number;
  generationMs: number;
  peakRssMb: number;
}

export interface GrowthStep {
  fromWalks: number;
  toWalks: number;
  sizeFactor: number;
  timeFactor: number;
  memoryFactor: number;
  /** Extra milliseconds and megabytes per 1,000 more walks over this step. */
  marginalMsPer1k: number;
  marginalMbPer1k: number;
  linear: boolean;
}

export interface ConformanceFigures {
  scenario: 'direct' | 'delayed';
  delayMs: number;
  wallMs: number;
  requests: number;
  verdict: string;
  exitCode: number | null;
}

export interface TargetVerdict {
  id: string;
  target: string;
  measured: string;
  met: boolean;
}

export interface BenchReport {
  version: 2;
  startedAt: string;
  wallS: number;
  mode: 'full' | 'quick';
  machine: {
    node: string;
    platform: string;
    cpus: number;
    cpuModel: string;
    /** 1-minute load average when the run started and when it ended: above the CPU count, other work competed. */
    loadAverage: { start: number; end: number };
  };
  settings: {
    connections: number;
    /** Requests per second sent to each target. */
    rate: number;
    warmupS: number;
    durationS: number;
    rounds: number;
    largeWalks: number;
    fixtureSizes: number[];
    /** What was counted with Cachegrind, or null when the count was skipped. */
    instructions: {
      dataset: string;
      codings: Coding[];
      warmupRequests: number;
      requests: number;
    } | null;
  };
  load: LoadComparison[];
  revalidation: RevalidationFigures[];
  startup: StartupFigures[];
  fixtures: { sizes: GenerationFigures[]; growth: GrowthStep[] };
  conformance: ConformanceFigures[];
  /** The reference server's structured log during the run: one line per request, warm-ups included. */
  requestLogs: { dataset: string; lines: number; measuredRequests: number }[];
  targets: TargetVerdict[];
  notes: string[];
}

/**
 * The reference server's CPU per request ÷ each other target's. Targets measured in the same
 * rounds are compared round by round (each round runs them back to back) and the median of those
 * ratios is taken, so a burst of load from elsewhere on the machine skews one round, not the
 * figure. Figures with different numbers of rounds are compared by their medians. A target
 * without figures gets no ratio.
 */
export function ratiosOf(figures: LoadComparison['figures']): LoadComparison['ratios'] {
  const reference = figures.reference;
  const ratios: LoadComparison['ratios'] = {};
  if (!reference) return ratios;
  for (const other of ['expressFloor', 'nodeFloor', 'heldNodeFloor', 'prism'] as const) {
    const them = figures[other];
    if (!them || them.cpuUsPerRequest <= 0) continue;
    const ours = reference.roundsCpuUsPerRequest;
    const theirs = them.roundsCpuUsPerRequest;
    ratios[other] =
      ours.length > 0 && ours.length === theirs.length && theirs.every((cpu) => cpu > 0)
        ? median(ours.map((cpu, round) => cpu / (theirs[round] as number)))
        : reference.cpuUsPerRequest / them.cpuUsPerRequest;
  }
  return ratios;
}

/** Growth between consecutive sizes (sorted by walk count). */
export function growthOf(sizes: readonly GenerationFigures[]): GrowthStep[] {
  const sorted = [...sizes].sort((a, b) => a.walks - b.walks);
  const steps: GrowthStep[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const from = sorted[i - 1] as GenerationFigures;
    const to = sorted[i] as GenerationFigures;
    const sizeFactor = to.walks / from.walks;
    const timeFactor = to.generationMs / from.generationMs;
    const memoryFactor = to.peakRssMb / from.peakRssMb;
    const per1k = (to.walks - from.walks) / 1_000;
    steps.push({
      fromWalks: from.walks,
      toWalks: to.walks,
      sizeFactor,
      timeFactor,
      memoryFactor,
      marginalMsPer1k: (to.generationMs - from.generationMs) / per1k,
      marginalMbPer1k: (to.peakRssMb - from.peakRssMb) / per1k,
      linear:
        timeFactor <= sizeFactor * TARGETS.maxGrowthOverSize &&
        memoryFactor <= sizeFactor * TARGETS.maxGrowthOverSize,
    });
  }
  return steps;
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);
const seconds = (ms: number) => `${fixed(ms / 1000)} s`;

/**
 * The per-request targets of one row of the data set whose instructions were counted: judged on
 * instructions per request. CPU time is reported beside them, never judged: on a VM that accounts
 * no steal time it swings 2-3 × between rounds. A missing count is never met.
 */
function instructionVerdicts(row: LoadComparison): TargetVerdict[] {
  const id = `${row.dataset}/${row.endpoint}/${row.coding}`;
  const shown = (ratio: number | undefined) => (ratio === undefined ? 'not counted' : `${fixed(ratio)} ×`);
  const { nodeFloor, expressFloor } = row.instructionRatios ?? {};
  return [
    {
      id: `${id}/instructions-vs-node-floor`,
      target: `instructions per request ≤ ${fixed(TARGETS.maxOverNodeFloor)} × Node floor`,
      measured: shown(nodeFloor),
      met: nodeFloor !== undefined && nodeFloor <= TARGETS.maxOverNodeFloor,
    },
    {
      id: `${id}/instructions-vs-express-floor`,
      target: `instructions per request < ${fixed(TARGETS.belowExpressFloor)} × Express floor`,
      measured: shown(expressFloor),
      met: expressFloor !== undefined && expressFloor < TARGETS.belowExpressFloor,
    },
  ];
}

/** Whether a row belongs to what was to be counted. */
function counted(report: Omit<BenchReport, 'targets'>, row: LoadComparison): boolean {
  const plan = report.settings.instructions;
  return plan !== null && plan.dataset === row.dataset && plan.codings.includes(row.coding);
}

/** Every target the measured figures speak to, with its verdict. */
export function verdictsOf(report: Omit<BenchReport, 'targets'>): TargetVerdict[] {
  return [
    ...report.load.flatMap((row) => [
      ...(counted(report, row) ? instructionVerdicts(row) : []),
      failureVerdict(row),
    ]),
    ...report.revalidation.map((row): TargetVerdict => ({
      id: `${row.dataset}/${row.endpoint}/${row.coding}/if-none-match-304`,
      target: 'If-None-Match with the ETag → 304',
      measured: `${row.revalidatedStatus}`,
      met: row.etag !== undefined && row.revalidatedStatus === 304,
    })),
    ...startupVerdicts(report.startup),
    ...fixtureVerdicts(report.fixtures),
    ...report.conformance.map(conformanceVerdict),
  ];
}

function failureVerdict(row: LoadComparison): TargetVerdict {
  const failures = Object.entries(row.figures)
    .filter(([, figures]) => figures.failures > 0)
    .map(([target, figures]) => `${target}: ${figures.failures}`);
  return {
    id: `${row.dataset}/${row.endpoint}/${row.coding}/no-failed-requests`,
    target: 'every load request answered 2xx',
    measured: failures.length === 0 ? 'none failed' : failures.join(', '),
    met: failures.length === 0,
  };
}

function startupVerdicts(startup: readonly StartupFigures[]): TargetVerdict[] {
  const demo = startup.find((row) => row.dataset === 'demo');
  if (!demo) return [];
  return (
    [
      ['child-process', demo.childProcessMs],
      ['in-process', demo.inProcessMs],
    ] as const
  ).map(([kind, ms]) => ({
    id: `demo/startup/${kind}`,
    target: `start-up ≤ ${seconds(TARGETS.maxDemoStartupMs)}`,
    measured: seconds(ms),
    met: ms <= TARGETS.maxDemoStartupMs,
  }));
}

function fixtureVerdicts({ sizes, growth }: BenchReport['fixtures']): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];
  const largest = [...sizes].sort((a, b) => b.walks - a.walks)[0];
  if (largest) {
    verdicts.push({
      id: `fixtures/${largest.walks}/time`,
      target: `generated in ≤ ${seconds(TARGETS.maxGenerationMs)}`,
      measured: seconds(largest.generationMs),
      met: largest.generationMs <= TARGETS.maxGenerationMs,
    });
    verdicts.push({
      id: `fixtures/${largest.walks}/memory`,
      target: `peak RSS ≤ ${TARGETS.maxGenerationPeakRssMb} MB`,
      measured: `${Math.round(largest.peakRssMb)} MB`,
      met: largest.peakRssMb <= TARGETS.maxGenerationPeakRssMb,
    });
  }
  for (const step of growth) {
    verdicts.push({
      id: `fixtures/growth/${step.fromWalks}-${step.toWalks}`,
      target: `linear: time and memory ≤ ${TARGETS.maxGrowthOverSize} × ${fixed(step.sizeFactor, 0)}`,
      measured: `time ×${fixed(step.timeFactor)}, memory ×${fixed(step.memoryFactor)}`,
      met: step.linear,
    });
  }
  return verdicts;
}

function conformanceVerdict(run: ConformanceFigures): TargetVerdict {
  const maxMs = run.delayMs > 0 ? TARGETS.maxDelayedConformanceMs : TARGETS.maxConformanceMs;
  return {
    id: `conformance/${run.scenario}`,
    target: `≤ ${seconds(maxMs)}, ≤ ${TARGETS.maxConformanceRequests} requests, verdict pass`,
    measured: `${seconds(run.wallMs)}, ${run.requests} requests, ${run.verdict}`,
    met: run.wallMs <= maxMs && run.requests <= TARGETS.maxConformanceRequests && run.verdict === 'pass',
  };
}
