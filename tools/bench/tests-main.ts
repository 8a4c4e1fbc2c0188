/**
 * `npm run bench:tests`: what a contributor waits for. A fresh clone of the commit (alone, as a
 * new contributor has it) and `npm ci`, not timed; then `npm run test:quick` and
 * `npm test`, each timed, with the tests vitest counted. With `--against REF`, that commit's
 * `npm test` is timed the same way right after, so the two figures are taken together. Printed
 * beside the figures: their thresholds, the machine's load while they were taken, and the source
 * lines of each commit by top-level folder, tests and generated files apart. Figures are printed,
 * never asserted; the exit status says whether every run passed.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, execaSync } from 'execa';
import { ROOT } from '../../command-line/bundle.js';
import { type CommandSpec, optionsOrExit, readFlags, UsageError } from '../../command-line/flags.ts';
import { onStopSignal } from '../../command-line/signals.ts';
import { childrenCpuS, linesByFolder, type FolderLines, testsOf } from './test-figures.ts';

const COMMAND = {
  name: 'bench:tests',
  usage: 'npm run bench:tests [-- --commit REF] [--against REF]',
  summary: `Times the tests as a contributor waits for them: a fresh clone of the commit (HEAD, or --commit)
alone, npm ci (not timed), then npm run test:quick and npm test, timed, with the
tests vitest counted. With --against, that commit's npm test is timed right after. Prints the
figures beside their thresholds, the load average, and the source lines by top-level folder.
Commits are measured, not the working tree. Takes minutes.`,
  flags: {
    commit: { type: 'string', value: 'REF', help: 'The commit to measure (default HEAD)' },
    against: {
      type: 'string',
      value: 'REF',
      help: 'A commit whose npm test is timed right after, and compared',
    },
  },
  sections: [
    {
      title: 'Exit status',
      text: '  0 every run passed; 1 a run failed; 2 usage, or a commit that does not resolve.',
    },
  ],
} as const satisfies CommandSpec;

/** The thresholds printed beside the figures. */
const THRESHOLDS = { quickTests: 300, quickShareOfTest: 1 / 6, testShareOfAgainst: 0.75 };

interface Commit {
  ref: string;
  hash: string;
}

interface Timed {
  script: string;
  wallS: number;
  /** CPU time of the run and everything it waited for; undefined without /proc. */
  cpuS: number | undefined;
  tests: number | undefined;
  failed: number | undefined;
  exitCode: number | undefined;
  load: number;
}

const git = (args: string[], cwd = ROOT) => execaSync('git', args, { cwd }).stdout.trim();

function resolved(flag: string, ref: string): Commit {
  try {
    return { ref, hash: git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]) };
  } catch {
    throw new UsageError(`${flag} ${ref} is not a commit of this repository`);
  }
}

/** The run in progress, in a process group of its own: a stop signal reaches all of it. */
let running: { pid?: number | undefined } | undefined;
let stoppedBy: NodeJS.Signals | undefined;
onStopSignal((signal) => {
  stoppedBy = signal;
  if (running?.pid !== undefined) process.kill(-running.pid, signal);
});

/** Runs `npm ARGS` in `cwd`, its output appended to `log`, in the caller's environment without npm's own. */
async function npm(args: string[], cwd: string, log: string) {
  if (stoppedBy) throw new Error(`stopped by ${stoppedBy}`);
  const child = execa('npm', args, {
    cwd,
    env: runEnv(process.env),
    extendEnv: false,
    stdin: 'ignore',
    stdout: { file: log, append: true },
    stderr: { file: log, append: true },
    detached: true,
    reject: false,
  });
  running = child;
  try {
    return await child;
  } finally {
    running = undefined;
  }
}

/**
 * The caller's environment as `npm test` typed in a terminal would see it: without what `npm run
 * bench:tests` added (npm's variables, this repository's `node_modules/.bin` on the path).
 */
function runEnv(env: NodeJS.ProcessEnv): Record<string, string> {
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

/** Clock ticks per second, the unit of /proc's CPU times. */
const TICKS = Number(execaSync('getconf', ['CLK_TCK'], { reject: false }).stdout) || 100;

/** The CPU seconds of this process's finished children so far; undefined without /proc. */
const childrenCpu = () =>
  existsSync('/proc/self/stat') ? childrenCpuS(readFileSync('/proc/self/stat', 'utf8'), TICKS) : undefined;

/**
 * Times `npm run SCRIPT` (or `npm test`) in `repo`, with its CPU time and the load average over the
 * run: on a machine other work shares, the wall time counts every wait for a core, the CPU time not.
 */
async function timed(script: string, repo: string, log: string): Promise<Timed> {
  const before = readFileSync(log, 'utf8').length;
  const cpuBefore = childrenCpu();
  const loads: number[] = [loadavg()[0] ?? 0];
  const sampler = setInterval(() => loads.push(loadavg()[0] ?? 0), 5_000);
  const started = performance.now();
  const ran = await npm(script === 'test' ? ['test'] : ['run', script], repo, log);
  const wallS = (performance.now() - started) / 1000;
  const cpuAfter = childrenCpu();
  clearInterval(sampler);
  loads.push(loadavg()[0] ?? 0);
  const counted = testsOf(readFileSync(log, 'utf8').slice(before));
  return {
    script,
    wallS,
    cpuS: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
    tests: counted?.tests,
    failed: counted?.failed,
    exitCode: ran.exitCode,
    load: loads.reduce((sum, load) => sum + load, 0) / loads.length,
  };
}

/** A fresh clone of the commit, alone as a new contributor has it, `npm ci` done; removed by `done()`. */
async function cloned({ hash }: Commit, log: string): Promise<{ repo: string; done: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tests-'));
  const done = () => rmSync(dir, { recursive: true, force: true });
  try {
    const repo = join(dir, 'repo');
    git(['clone', '--quiet', '--no-checkout', ROOT, repo]);
    git(['checkout', '--quiet', '--detach', hash], repo);
    const installed = await npm(['ci', '--no-audit', '--no-fund'], repo, log);
    if (installed.exitCode !== 0)
      throw new Error(`npm ci failed in the clone of ${hash.slice(0, 9)}; see ${log}`);
    return { repo, done };
  } catch (error) {
    done();
    throw error;
  }
}

async function measure(commit: Commit, scripts: string[]): Promise<Timed[]> {
  const log = join(tmpdir(), `bench-tests-${commit.hash.slice(0, 9)}-${Date.now()}.log`);
  console.log(
    `  ${commit.hash.slice(0, 9)} (${commit.ref}): npm ci, then ${scripts.join(', ')}; output in ${log}`,
  );
  const { repo, done } = await cloned(commit, log);
  try {
    const runs: Timed[] = [];
    for (const script of scripts) runs.push(await timed(script, repo, log));
    return runs;
  } finally {
    done();
  }
}

const seconds = (s: number) => `${s.toFixed(1)} s`;
const mark = (met: boolean) => (met ? 'met' : 'MISSED');

function runLine(commit: Commit, run: Timed): string {
  const tests = run.tests === undefined ? 'no vitest summary' : `${run.tests} tests, ${run.failed} failed`;
  const exit = run.exitCode === 0 ? '' : ` · exited ${run.exitCode ?? 'on a signal'}`;
  const cpu = run.cpuS === undefined ? '' : ` · CPU ${seconds(run.cpuS)}`;
  return `  ${commit.hash.slice(0, 9)} npm ${run.script === 'test' ? 'test' : `run ${run.script}`}: wall ${seconds(run.wallS)}${cpu} · ${tests} · load average ${run.load.toFixed(1)} on ${availableParallelism()} cores${exit}`;
}

function thresholdLines(mine: Timed[], against: Timed | undefined): string[] {
  const quick = mine.find((run) => run.script === 'test:quick');
  const full = mine.find((run) => run.script === 'test');
  const lines: string[] = [];
  if (quick && full) {
    lines.push(
      `  test:quick ${quick.tests ?? '?'} tests · threshold ≥ ${THRESHOLDS.quickTests}: ${mark((quick.tests ?? 0) >= THRESHOLDS.quickTests)}`,
      `  test:quick ${seconds(quick.wallS)} = ${((100 * quick.wallS) / full.wallS).toFixed(0)} % of npm test's ${seconds(full.wallS)} · threshold ≤ 1/6 (${seconds(full.wallS * THRESHOLDS.quickShareOfTest)}): ${mark(quick.wallS <= full.wallS * THRESHOLDS.quickShareOfTest)}`,
    );
  }
  if (full && against) {
    const limit = against.wallS * THRESHOLDS.testShareOfAgainst;
    lines.push(
      `  npm test ${seconds(full.wallS)} = ${((100 * full.wallS) / against.wallS).toFixed(0)} % of ${seconds(against.wallS)} · threshold ≤ 75 % (${seconds(limit)}): ${mark(full.wallS <= limit)}`,
    );
    if (full.cpuS !== undefined && against.cpuS !== undefined) {
      lines.push(
        `  npm test's CPU ${seconds(full.cpuS)} = ${((100 * full.cpuS) / against.cpuS).toFixed(0)} % of ${seconds(against.cpuS)} (what the wall time comes to on cores of its own)`,
      );
    }
  }
  return lines;
}

function linesTable(commits: Commit[]): string[] {
  const tables = commits.map((commit) =>
    linesByFolder(
      git(['grep', '-c', '-I', '', commit.hash, '--', '*.ts', '*.js', '*.mjs', '*.cjs']),
      commit.hash,
    ),
  );
  const folders = [...new Set(tables.flatMap((table) => Object.keys(table)))].sort();
  const cell = (lines: FolderLines | undefined) =>
    lines ? `${lines.source} / ${lines.tests} / ${lines.generated}` : '–';
  return [
    `  source lines by top-level folder (code / tests / generated): ${commits.map((c) => c.hash.slice(0, 9)).join(' → ')}`,
    ...folders.map(
      (folder) =>
        `    ${folder.padEnd(18)} ${tables.map((table) => cell(table[folder]).padEnd(22)).join(' ')}`,
    ),
  ];
}

async function main(commit: Commit, against: Commit | undefined): Promise<number> {
  console.log(
    `bench:tests on ${availableParallelism()} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const mine = await measure(commit, ['test:quick', 'test']);
  const theirs = against ? await measure(against, ['test']) : [];
  for (const run of mine) console.log(runLine(commit, run));
  for (const run of theirs) console.log(runLine(against as Commit, run));
  for (const line of thresholdLines(mine, theirs[0])) console.log(line);
  for (const line of linesTable(against ? [against, commit] : [commit])) console.log(line);
  return [...mine, ...theirs].every((run) => run.exitCode === 0 && run.failed === 0) ? 0 : 1;
}

const options = optionsOrExit(COMMAND, process.argv.slice(2), (argv) => {
  const { values } = readFlags(COMMAND, argv);
  if (values.help) return 'help';
  return {
    commit: resolved('--commit', values.commit ?? 'HEAD'),
    against: values.against === undefined ? undefined : resolved('--against', values.against),
  };
});
if (typeof options === 'number') process.exitCode = options;
else {
  try {
    process.exitCode = await main(options.commit, options.against);
  } catch (error) {
    process.stderr.write(`bench:tests: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
