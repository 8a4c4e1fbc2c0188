/** What the benchmark computes from its measurements: medians, ratios, growth and verdicts. */
import { describe, expect, it } from 'vitest';
import type { InstructionCount } from '../cachegrind.ts';
import {
  type BenchReport,
  growthOf,
  instructionRatiosOf,
  ratiosOf,
  TARGETS,
  verdictsOf,
} from '../figures.ts';
import type { AutocannonResult } from '../../measure/autocannon.ts';
import { combineRuns, type LoadFigures, runFigures, untilQuiet } from '../load.ts';

/** A count of 1,500 requests costing `perRequest` instructions each. */
function counted(perRequest: number): InstructionCount {
  return {
    baseline: 1e9,
    loaded: 1e9 + 1_500 * perRequest,
    requests: 1_500,
    warmupRequests: 1,
    perRequest,
  };
}

/** Figures whose rounds each cost `cpuUs` µs per request (1,000 requests a round). */
function figures(rounds: number[]): LoadFigures {
  return combineRuns(
    rounds.map((cpuUs) => ({
      cpuMs: cpuUs,
      requestsPerSecond: 1_000,
      latencyP50Ms: 1,
      latencyP99Ms: 3,
      requests: 1_000,
      failures: 0,
      bytes: 100_000,
      durationS: 1,
    })),
  );
}

describe('load figures', () => {
  it('waits for every target to go idle before a round, and gives up after its limit', async () => {
    // A server still busy from its own round: its CPU time reads 40, 80, 120, 160, 160, ... ms.
    let readings = 0;
    const busy = { cpuMs: () => Math.min(++readings, 4) * 40 };
    const idle = { cpuMs: () => 7 };
    const quiet = { maxCpuMs: 5, windowMs: 1, maxWaitMs: 10_000 };
    expect(await untilQuiet([idle, busy], quiet)).toBe(true);
    expect(readings).toBe(5); // quiet once two readings agree: the fourth and the fifth
    let spent = 0;
    const neverIdle = { cpuMs: () => (spent += 10) };
    expect(await untilQuiet([neverIdle], { ...quiet, maxWaitMs: 20 })).toBe(false);
  });

  it('reads throughput over the whole run and counts every kind of failure', () => {
    const result: AutocannonResult = {
      duration: 2,
      errors: 1,
      timeouts: 2,
      non2xx: 3,
      latency: { p50: 1, p99: 7, max: 12, average: 1.5 },
      requests: { total: 5_000, average: 2_400 },
      throughput: { total: 5_000 * 1_200 },
      statusCodeStats: { '200': { count: 4_997 }, '500': { count: 3 } },
    };
    expect(runFigures(result, 250)).toEqual({
      cpuMs: 250,
      requestsPerSecond: 2_500,
      latencyP50Ms: 1,
      latencyP99Ms: 7,
      requests: 5_000,
      failures: 6,
      bytes: 6_000_000,
      durationS: 2,
    });
  });

  it('combines rounds: median CPU per request and rate, summed requests and failures, bytes per answer', () => {
    const combined = combineRuns([
      {
        cpuMs: 5,
        requestsPerSecond: 10,
        latencyP50Ms: 1,
        latencyP99Ms: 9,
        requests: 10,
        failures: 0,
        bytes: 1_000,
        durationS: 1,
      },
      {
        cpuMs: 30,
        requestsPerSecond: 30,
        latencyP50Ms: 3,
        latencyP99Ms: 5,
        requests: 30,
        failures: 2,
        bytes: 3_000,
        durationS: 1,
      },
      {
        cpuMs: 40,
        requestsPerSecond: 20,
        latencyP50Ms: 2,
        latencyP99Ms: 7,
        requests: 20,
        failures: 0,
        bytes: 2_000,
        durationS: 1,
      },
    ]);
    expect(combined).toEqual({
      cpuUsPerRequest: 1_000, // rounds: 500, 1,000 and 2,000 µs per request
      roundsCpuUsPerRequest: [500, 1_000, 2_000],
      requestsPerSecond: 20,
      roundsRequestsPerSecond: [10, 30, 20],
      latencyP50Ms: 2,
      latencyP99Ms: 7,
      requests: 60,
      failures: 2,
      bytesPerRequest: 100,
      durationS: 3,
    });
  });
});

describe('ratios and growth', () => {
  it('compares CPU per request round by round, and figures of another number of rounds by their medians', () => {
    const reference = figures([100, 50, 300]);
    const ratios = ratiosOf({
      reference,
      expressFloor: figures([50, 50, 100]),
      nodeFloor: figures([200, 25, 300]),
      heldNodeFloor: figures([100, 50, 400]),
      prism: figures([1, 2]),
    });
    expect(ratios.heldNodeFloor).toBe(1); // rounds: 1, 1, 0.75
    expect(ratios.expressFloor).toBe(2); // rounds: 2, 1, 3
    expect(ratios.nodeFloor).toBe(1); // rounds: 0.5, 2, 1
    expect(ratios.prism).toBe(100 / 1.5); // medians: 100 and 1.5
    expect(ratiosOf({ nodeFloor: figures([1]) })).toEqual({});
  });

  it('calls growth linear up to 1.25 times the size factor, per step', () => {
    const steps = growthOf([
      { walks: 10_000, stops: 0, generationMs: 1_000, peakRssMb: 200 },
      { walks: 1_000, stops: 0, generationMs: 100, peakRssMb: 100 },
      { walks: 100_000, stops: 0, generationMs: 13_000, peakRssMb: 1_000 },
    ]);
    expect(steps.map((step) => [step.fromWalks, step.toWalks, step.timeFactor, step.linear])).toEqual([
      [1_000, 10_000, 10, true],
      [10_000, 100_000, 13, false],
    ]);
    expect(steps[0]?.marginalMsPer1k).toBe(100);
    expect(steps[0]?.marginalMbPer1k).toBeCloseTo(100 / 9);
  });
});

describe('verdicts', () => {
  const base: Omit<BenchReport, 'targets'> = {
    version: 2,
    startedAt: '2026-01-01T00:00:00.000Z',
    wallS: 1,
    mode: 'quick',
    machine: {
      node: 'v20',
      platform: 'linux-x64',
      cpus: 2,
      cpuModel: 'test',
      loadAverage: { start: 0, end: 0 },
    },
    settings: {
      connections: 1,
      rate: 1,
      warmupS: 0,
      durationS: 1,
      rounds: 1,
      largeWalks: 1,
      fixtureSizes: [],
      instructions: { dataset: 'demo', codings: ['gzip', 'identity'], warmupRequests: 1, requests: 1_500 },
    },
    load: [],
    revalidation: [],
    startup: [],
    fixtures: { sizes: [], growth: [] },
    conformance: [],
    requestLogs: [],
    notes: [],
  };

  it('compares instructions per request with each floor, and gives no ratio without a count', () => {
    expect(
      instructionRatiosOf({ reference: counted(300), expressFloor: counted(1_200), nodeFloor: counted(200) }),
    ).toEqual({ expressFloor: 0.25, nodeFloor: 1.5 });
    expect(instructionRatiosOf({ reference: counted(300) })).toEqual({});
    expect(instructionRatiosOf({ nodeFloor: counted(200) })).toEqual({});
  });

  it('holds each figure to its target, and a missing figure is never met', () => {
    const reference = figures([1_000]);
    // Per-request targets judge instructions; CPU ratios, good or bad, are reported only.
    const gzipCounts = { reference: counted(1_000), expressFloor: counted(1_000), nodeFloor: counted(600) };
    const identityCounts = {
      reference: counted(1_000),
      expressFloor: counted(2_000),
      nodeFloor: counted(1_000 / 1.5),
    };
    const report: Omit<BenchReport, 'targets'> = {
      ...base,
      load: [
        {
          dataset: 'demo',
          walks: 240,
          endpoint: 'list',
          path: '/api/v1/walks?limit=200',
          coding: 'gzip',
          contentEncoding: 'gzip',
          bodyBytes: 1,
          figures: { reference, expressFloor: figures([2_000]), nodeFloor: figures([1_000]) },
          ratios: { expressFloor: 0.5, nodeFloor: 1 },
          instructions: gzipCounts,
          instructionRatios: instructionRatiosOf(gzipCounts),
        },
        {
          dataset: 'demo',
          walks: 240,
          endpoint: 'list',
          path: '/api/v1/walks?limit=200',
          coding: 'identity',
          contentEncoding: undefined,
          bodyBytes: 1,
          figures: {
            reference,
            expressFloor: figures([2_000]),
            nodeFloor: figures([1_000 / 1.5]),
            prism: figures([100]),
          },
          ratios: { expressFloor: 2, nodeFloor: 3, prism: 10 },
          instructions: identityCounts,
          instructionRatios: instructionRatiosOf(identityCounts),
        },
        {
          dataset: 'demo',
          walks: 240,
          endpoint: 'detail',
          path: '/api/v1/walks/x',
          coding: 'gzip',
          contentEncoding: 'gzip',
          bodyBytes: 1,
          figures: { reference, expressFloor: figures([2_000]), nodeFloor: figures([1_000]) },
          ratios: { expressFloor: 0.5, nodeFloor: 1 },
        },
        {
          dataset: 'large',
          walks: 100_000,
          endpoint: 'list',
          path: '/api/v1/walks?limit=200',
          coding: 'gzip',
          contentEncoding: 'gzip',
          bodyBytes: 1,
          figures: { reference, expressFloor: figures([500]), nodeFloor: figures([100]) },
          ratios: { expressFloor: 2, nodeFloor: 10 },
        },
      ],
      revalidation: [
        { dataset: 'demo', endpoint: 'list', coding: 'gzip', etag: '"x"', revalidatedStatus: 200 },
      ],
      startup: [
        {
          dataset: 'demo',
          walks: 240,
          childProcessMs: 999,
          childProcessSamplesMs: [999],
          inProcessMs: 1_001,
          inProcessSamplesMs: [1_001],
          rssAtStartMb: 1,
          rssAfterLoadMb: 1,
          peakRssMb: 1,
        },
      ],
      conformance: [
        { scenario: 'delayed', delayMs: 100, wallMs: 14_000, requests: 601, verdict: 'pass', exitCode: 0 },
      ],
    };
    const met = Object.fromEntries(verdictsOf(report).map((verdict) => [verdict.id, verdict.met]));
    // Prism's ratio is shown, never judged; 1.5 × the Node floor is met, 1 × the Express floor is not;
    // a counted row without counts is not met; the large data set, never counted, is not judged.
    expect(met).toEqual({
      'demo/list/gzip/instructions-vs-node-floor': false,
      'demo/list/gzip/instructions-vs-express-floor': false,
      'demo/list/gzip/no-failed-requests': true,
      'demo/list/identity/instructions-vs-node-floor': true,
      'demo/list/identity/instructions-vs-express-floor': true,
      'demo/list/identity/no-failed-requests': true,
      'demo/detail/gzip/instructions-vs-node-floor': false,
      'demo/detail/gzip/instructions-vs-express-floor': false,
      'demo/detail/gzip/no-failed-requests': true,
      'large/list/gzip/no-failed-requests': true,
      'demo/list/gzip/if-none-match-304': false,
      'demo/startup/child-process': true,
      'demo/startup/in-process': false,
      'conformance/delayed': false,
    });
    expect(TARGETS.maxConformanceRequests).toBe(600);
  });

  it('fails a row whose load runs had failed requests', () => {
    const failing = { ...figures([5]), failures: 3 };
    const verdicts = verdictsOf({
      ...base,
      load: [
        {
          dataset: 'large',
          walks: 1,
          endpoint: 'detail',
          path: '/x',
          coding: 'gzip',
          contentEncoding: 'gzip',
          bodyBytes: 1,
          figures: { reference: failing },
          ratios: {},
        },
      ],
    });
    expect(verdicts.find((verdict) => verdict.id === 'large/detail/gzip/no-failed-requests')).toMatchObject({
      met: false,
      measured: 'reference: 3',
    });
  });
});
