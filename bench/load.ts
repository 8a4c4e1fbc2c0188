/**
 * Load runs with autocannon's programmatic API: bounded runs whose CPU time per request (read from
 * the serving process itself), throughput, latency percentiles and failures become `LoadFigures`,
 * several targets compared round by round.
 */
import { autocannon, type AutocannonResult } from '../measure/autocannon.ts';
import { median } from '../measure/statistics.ts';

export interface LoadFigures {
  /** CPU time (user + system) of the serving process per completed request, in µs: the median of the rounds. */
  cpuUsPerRequest: number;
  /** Each round's CPU µs per request, in the order they ran. */
  roundsCpuUsPerRequest: number[];
  /** Completed requests per second: the median of the rounds. */
  requestsPerSecond: number;
  /** Each round's requests per second, in the order they ran. */
  roundsRequestsPerSecond: number[];
  /** Latency percentiles in milliseconds (autocannon records whole milliseconds), median of the rounds. */
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Completed requests over all rounds. */
  requests: number;
  /** Non-2xx answers, socket errors and timeouts over all rounds: any of them spoils the figures. */
  failures: number;
  /** Bytes per answer, headers included. */
  bytesPerRequest: number;
  /** Seconds measured over all rounds (warm-up excluded). */
  durationS: number;
}

/** One measured autocannon run. */
export interface RunFigures {
  /** CPU milliseconds the serving process used during the run. */
  cpuMs: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
  failures: number;
  bytes: number;
  durationS: number;
}

export interface LoadTarget {
  name: string;
  url: string;
  headers?: Record<string, string>;
  /** CPU milliseconds the serving process has used so far (`ServerChild.cpuMs`). */
  cpuMs: () => number | undefined;
}

export interface LoadSettings {
  connections: number;
  /**
   * Requests per second sent to every target (autocannon's `overallRate`): each server is measured
   * at the same pace, so none gets cheaper per request merely by answering more at once.
   */
  rate: number;
  warmupS: number;
  durationS: number;
  rounds: number;
}

/**
 * Measures targets against each other: a warm-up each (flat out, then one paced round not kept),
 * then `rounds` rounds in which every target runs once, the order rotating each round, so a burst of load from elsewhere on the machine
 * lands on all of them rather than on one. Each figure is the median of its rounds.
 */
export async function compareLoad(
  targets: readonly LoadTarget[],
  settings: LoadSettings,
): Promise<Record<string, LoadFigures>> {
  const runs = new Map<string, RunFigures[]>(targets.map((target) => [target.name, []]));
  const once = async (target: LoadTarget, duration: number, paced = true) => {
    const cpuBefore = target.cpuMs();
    const result = await autocannon({
      url: target.url,
      connections: settings.connections,
      ...(paced ? { overallRate: settings.rate } : {}),
      headers: target.headers ?? {},
      duration,
      // Samples every 100 ms so that short runs end on time (autocannon stops on a sample tick).
      sampleInt: 100,
      timeout: 10,
    });
    const cpuAfter = target.cpuMs();
    if (cpuBefore === undefined || cpuAfter === undefined) {
      throw new Error(`cannot read the CPU time of ${target.name} (Linux /proc is needed)`);
    }
    return runFigures(result, cpuAfter - cpuBefore);
  };
  // Warm-ups run flat out: the optimising compiler, whose threads count in the process's CPU time,
  // should be done with the hot code before any measured round. Then one paced round of every
  // target that is not kept: the first rounds at the measured pace pay for the change from flat
  // out (V8 shrinks the heap it grew and reduces memory once the allocation rate falls), every
  // target alike, and a process started for this row (the floors) is still young in them.
  if (settings.warmupS > 0) {
    for (const target of targets) await once(target, settings.warmupS, false);
    for (const target of targets) {
      await untilQuiet(targets);
      await once(target, settings.durationS);
    }
  }
  for (let round = 0; round < settings.rounds; round++) {
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(i + round) % targets.length] as LoadTarget;
      await untilQuiet(targets);
      runs.get(target.name)?.push(await once(target, settings.durationS));
    }
  }
  return Object.fromEntries(targets.map((target) => [target.name, combineRuns(runs.get(target.name) ?? [])]));
}

/** A target may go on using CPU after its load ends (Prism collects garbage for a second or more). */
export const QUIET = {
  /** Every target together used at most this many CPU milliseconds over one window... */
  maxCpuMs: 5,
  windowMs: 100,
  /** ...or this long has passed. */
  maxWaitMs: 3_000,
} as const;

/**
 * Waits until every target is idle: a round measures one server's CPU time, and another server
 * still busy with the work of its own round competes with it for the two cores and their caches.
 * Without this, whichever target follows the costliest one in the rotation pays for it.
 */
export async function untilQuiet(
  targets: readonly Pick<LoadTarget, 'cpuMs'>[],
  quiet: { maxCpuMs: number; windowMs: number; maxWaitMs: number } = QUIET,
): Promise<boolean> {
  const total = () => targets.reduce((sum, target) => sum + (target.cpuMs() ?? 0), 0);
  const deadline = performance.now() + quiet.maxWaitMs;
  let before = total();
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, quiet.windowMs));
    const after = total();
    if (after - before <= quiet.maxCpuMs) return true;
    before = after;
  }
  return false;
}

/** Throughput over the whole run rather than autocannon's mean of per-sample counts. */
export function runFigures(result: AutocannonResult, cpuMs: number): RunFigures {
  const requests = result.requests.total;
  return {
    cpuMs,
    requestsPerSecond: result.duration > 0 ? requests / result.duration : 0,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests,
    failures: result.non2xx + result.errors + result.timeouts,
    bytes: result.throughput.total,
    durationS: result.duration,
  };
}

export function combineRuns(runs: readonly RunFigures[]): LoadFigures {
  const sum = (pick: (run: RunFigures) => number) => runs.reduce((total, run) => total + pick(run), 0);
  const requests = sum((run) => run.requests);
  const cpuUs = runs.map((run) => (run.requests > 0 ? (run.cpuMs * 1000) / run.requests : 0));
  return {
    cpuUsPerRequest: median(cpuUs),
    roundsCpuUsPerRequest: cpuUs,
    requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
    roundsRequestsPerSecond: runs.map((run) => run.requestsPerSecond),
    latencyP50Ms: median(runs.map((run) => run.latencyP50Ms)),
    latencyP99Ms: median(runs.map((run) => run.latencyP99Ms)),
    requests,
    failures: sum((run) => run.failures),
    bytesPerRequest: requests > 0 ? sum((run) => run.bytes) / requests : 0,
    durationS: sum((run) => run.durationS),
  };
}
