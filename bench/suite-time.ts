/**
 * What `npm run bench:suite` reads and judges, apart from the runs themselves: the test count from
 * vitest's closing summary, the CPU time of finished children from /proc, the environment a run
 * gets (the caller's, without what `npm run` added), and the verdict and table printed.
 */
import { median } from '../measure/statistics.ts';

/** One timed `npm test` of one commit. */
export interface SuiteRun {
  /** The commit measured, as given, and its short hash. */
  ref: string;
  commit: string;
  wallS: number;
  /** CPU time (user + system) of `npm test` and everything it waited for; undefined without /proc. */
  cpuS: number | undefined;
  /** Tests vitest ran, and how many failed; undefined when its summary was not printed. */
  tests: number | undefined;
  failed: number | undefined;
  status: number | null;
}

const ANSI = new RegExp(String.raw`\u001b\[[0-9;]*m`, 'g');

/**
 * The test count of vitest's closing summary, `Tests  3 failed | 1298 passed (1301)`: the number in
 * brackets, and the failures before it. The last such line counts (a run prints one).
 */
export function testsOf(output: string): { tests: number; failed: number } | undefined {
  const lines = [...output.replace(ANSI, '').matchAll(/^\s*Tests\s+(.*?)\((\d+)\)\s*$/gm)];
  const last = lines.at(-1);
  if (!last) return undefined;
  const failed = /(\d+) failed/.exec(last[1] ?? '');
  return { tests: Number(last[2]), failed: failed ? Number(failed[1]) : 0 };
}

/**
 * CPU seconds (user + system) of the children this process has waited for, from the text of
 * /proc/self/stat: fields 16 and 17 (cutime, cstime), counted in `ticksPerSecond`. A child's own
 * children count once it has waited for them, as every part of `npm test` is waited for.
 */
export function childrenCpuS(stat: string, ticksPerSecond: number): number {
  // The command name (field 2) is in brackets and may hold spaces: count fields after its end.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cutime = Number(fields[13]);
  const cstime = Number(fields[14]);
  if (!Number.isFinite(cutime) || !Number.isFinite(cstime))
    throw new Error('no child CPU times in /proc/self/stat');
  return (cutime + cstime) / ticksPerSecond;
}

/**
 * The environment of a measured run: the caller's, as `npm test` typed in its terminal would see
 * it, so without what `npm run bench:suite` added (npm's own variables and this repository's
 * `node_modules/.bin` on the path).
 */
export function runEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept = Object.entries(env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined && !/^npm_/i.test(entry[0]) && !['INIT_CWD', 'NODE', 'COLOR'].includes(entry[0]),
  );
  const path = (env.PATH ?? '')
    .split(':')
    .filter((dir) => !/node_modules[/\\](?:\.bin|@npmcli[/\\]run-script)/.test(dir))
    .join(':');
  return { ...Object.fromEntries(kept), PATH: path };
}

export interface SuiteVerdict {
  /** Median wall seconds of the commit measured and of the one it is measured against. */
  wallS: number;
  againstWallS: number;
  /** The floor: half of the other's median wall time. */
  floorS: number;
  met: boolean;
}

/** The target: the commit's `npm test` in at most half of the wall time of the other's. */
export function verdictOf(runs: SuiteRun[], against: SuiteRun[]): SuiteVerdict {
  const wallS = median(runs.map((run) => run.wallS));
  const againstWallS = median(against.map((run) => run.wallS));
  const floorS = againstWallS / 2;
  return { wallS, againstWallS, floorS, met: wallS <= floorS };
}

/** Whether every run finished with every test passed. */
export const allPassed = (runs: SuiteRun[]): boolean =>
  runs.every((run) => run.status === 0 && run.tests !== undefined && run.failed === 0);

const seconds = (s: number | undefined) => (s === undefined ? 'n/a' : `${s.toFixed(1)} s`);

/** One line per run: wall, CPU and how many cores it kept busy, tests and wall time per test. */
export function runLine(run: SuiteRun, cores: number): string {
  const busy =
    run.cpuS === undefined
      ? ''
      : ` (${((100 * run.cpuS) / run.wallS / cores).toFixed(0)} % of ${cores} cores)`;
  const perTest = run.tests ? `${((1000 * run.wallS) / run.tests).toFixed(0)} ms a test` : 'no test count';
  const tests = run.tests === undefined ? 'no vitest summary' : `${run.tests} tests, ${run.failed} failed`;
  const exit = run.status === 0 ? '' : ` · npm test exited ${run.status ?? 'on a signal'}`;
  return `  ${run.commit} (${run.ref})  wall ${seconds(run.wallS)} · CPU ${seconds(run.cpuS)}${busy} · ${tests} · ${perTest}${exit}`;
}

/** The verdict's lines: each median, the floor, met or missed, and wall time per test beside it. */
export function verdictLines(verdict: SuiteVerdict, runs: SuiteRun[], against: SuiteRun[]): string[] {
  const perTest = (list: SuiteRun[]) => {
    const counts = list.map((run) => run.tests).filter((n): n is number => n !== undefined);
    return counts.length ? median(list.map((run) => run.wallS)) / median(counts) : undefined;
  };
  const mine = perTest(runs);
  const theirs = perTest(against);
  const lines = [
    `  npm test ${seconds(verdict.wallS)} against ${seconds(verdict.againstWallS)}: ${((100 * verdict.wallS) / verdict.againstWallS).toFixed(0)} %` +
      ` · floor ≤ ${seconds(verdict.floorS)} (half): ${verdict.met ? 'met' : 'MISSED'}`,
  ];
  if (mine !== undefined && theirs !== undefined) {
    lines.push(
      `  wall time per test ${(1000 * mine).toFixed(0)} ms against ${(1000 * theirs).toFixed(0)} ms: ${((100 * mine) / theirs).toFixed(0)} %`,
    );
  }
  return lines;
}
