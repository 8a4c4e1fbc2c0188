/**
 * `npm run bench:suite`: the wall time of `npm test`, as a contributor waits for it. Each commit
 * measured gets a fresh clone of this repository (with `../shared` beside it, as CI has it) and
 * `npm ci` (not timed), so no cache of an earlier run helps; then `npm test` is timed. With
 * `--against REF` the two commits are measured back to back, in alternating order when there are
 * several rounds, since this VM's speed drifts between sessions: only figures taken together
 * compare. Printed beside each figure: CPU time, how many cores it kept busy, tests and wall time
 * per test; judged: this commit's `npm test` in at most half of REF's wall time.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  closeSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { once } from 'node:events';
import { availableParallelism, constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CommandSpec,
  integerFlag,
  optionsOrExit,
  readFlags,
  UsageError,
} from '../command-line/flags.ts';
import { onStopSignal } from '../command-line/signals.ts';
import { ROOT } from './processes.ts';
import {
  allPassed,
  childrenCpuS,
  runEnv,
  runLine,
  type SuiteRun,
  testsOf,
  verdictLines,
  verdictOf,
} from './suite-time.ts';

const COMMAND = {
  name: 'bench:suite',
  usage: 'npm run bench:suite [-- --commit REF] [--against REF] [--rounds N]',
  summary: `Times npm test as a contributor waits for it: a fresh clone of the commit (HEAD, or --commit),
with ../shared beside it, npm ci (not timed), then npm test, timed. Prints the wall time, the CPU
time and how many cores it kept busy, the tests and the wall time per test. With --against, the two
commits are measured back to back (alternating with --rounds) and the commit's npm test is judged
against half of REF's wall time. Commits are measured, not the working tree. Takes minutes a run.`,
  flags: {
    commit: { type: 'string', value: 'REF', help: 'The commit to measure (default HEAD)' },
    against: {
      type: 'string',
      value: 'REF',
      help: 'A commit to measure back to back with it, and judge it against',
    },
    rounds: {
      type: 'string',
      value: 'N',
      help: 'Runs of each commit, alternating which goes first (default 1, up to 5)',
    },
  },
  sections: [
    {
      title: 'Exit status',
      text: '  0 every run passed (and, with --against, the floor is met); 1 a run failed or the floor\n  was missed; 2 usage, or a commit that does not resolve.',
    },
  ],
} as const satisfies CommandSpec;

/** A commit to measure: as the user named it, and its full hash. */
interface Commit {
  ref: string;
  hash: string;
}

interface Options {
  commit: Commit;
  against: Commit | undefined;
  rounds: number;
}

const git = (args: string[], cwd = ROOT) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A commit of this repository with its full hash, or a usage error naming the flag. */
function resolved(flag: string, ref: string): Commit {
  try {
    return { ref, hash: git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]) };
  } catch {
    throw new UsageError(`${flag} ${ref} is not a commit of this repository`);
  }
}

/** Clock ticks per second, the unit of /proc's CPU times (100 on Linux as built by Debian). */
function ticksPerSecond(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
}

/** The CPU seconds of this process's finished children so far; undefined without /proc. */
function childrenCpu(ticks: number): number | undefined {
  return existsSync('/proc/self/stat')
    ? childrenCpuS(readFileSync('/proc/self/stat', 'utf8'), ticks)
    : undefined;
}

/** The stop signal the command got, if any, and the process group of the command it is running. */
let stoppedBy: NodeJS.Signals | undefined;
let runningGroup: number | undefined;
onStopSignal((signal) => {
  stoppedBy = signal;
  // Each command runs in a process group of its own (below), so the stop reaches all of npm test,
  // whether the signal came from a terminal or to this process alone; the clone is removed after.
  if (runningGroup !== undefined) process.kill(-runningGroup, signal);
});

/**
 * Runs a command in `cwd` with the caller's environment, output to `log`, in a process group of its
 * own; resolves its exit status. Throws once the command was stopped by a signal.
 */
async function runLogged(command: string, args: string[], cwd: string, log: string): Promise<number | null> {
  if (stoppedBy) throw new Error(`stopped by ${stoppedBy}`);
  const fd = openSync(log, 'a');
  try {
    const child = spawn(command, args, {
      cwd,
      env: runEnv(process.env),
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    runningGroup = child.pid;
    const [status] = (await once(child, 'exit')) as [number | null];
    if (stoppedBy) throw new Error(`stopped by ${stoppedBy}`);
    return status;
  } finally {
    runningGroup = undefined;
    closeSync(fd);
  }
}

/** A fresh clone of `commit` with `../shared` beside it and `npm ci` done: ready for `npm test`. */
async function prepared(commit: string, dir: string, log: string): Promise<string> {
  const repo = join(dir, 'repo');
  git(['clone', '--quiet', '--no-checkout', ROOT, repo]);
  git(['checkout', '--quiet', '--detach', commit], repo);
  const shared = join(ROOT, '..', 'shared');
  if (existsSync(shared)) symlinkSync(realpathSync(shared), join(dir, 'shared'));
  const installed = await runLogged('npm', ['ci', '--no-audit', '--no-fund'], repo, log);
  if (installed !== 0) throw new Error(`npm ci failed in the clone of ${commit.slice(0, 9)}; see ${log}`);
  return repo;
}

/** One timed `npm test` of `commit` in a fresh clone; the clone goes afterwards, the log stays. */
async function measured({ ref, hash }: Commit, ticks: number): Promise<SuiteRun> {
  const commit = hash.slice(0, 9);
  const dir = mkdtempSync(join(tmpdir(), 'bench-suite-'));
  const log = join(tmpdir(), `bench-suite-${commit}-${Date.now()}.log`);
  try {
    const repo = await prepared(hash, dir, log);
    process.stdout.write(`  timing npm test of ${commit} (${ref}); its output goes to ${log}\n`);
    const cpuBefore = childrenCpu(ticks);
    const started = performance.now();
    const status = await runLogged('npm', ['test'], repo, log);
    const wallS = (performance.now() - started) / 1000;
    const cpuAfter = childrenCpu(ticks);
    const counted = testsOf(readFileSync(log, 'utf8'));
    return {
      ref,
      commit,
      wallS,
      cpuS: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
      tests: counted?.tests,
      failed: counted?.failed,
      status,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(options: Options): Promise<number> {
  const ticks = ticksPerSecond();
  const cores = availableParallelism();
  const sides = [options.commit, options.against]
    .filter((commit): commit is Commit => commit !== undefined)
    .map((commit) => ({ commit, runs: [] as SuiteRun[] }));
  console.log(`npm test, timed in fresh clones on ${cores} cores (${options.rounds} round(s))`);
  for (let round = 0; round < options.rounds; round++) {
    // Alternating which goes first, so a drift of the machine's speed weighs on both alike.
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      side.runs.push(await measured(side.commit, ticks));
    }
  }
  const [mine, theirs] = sides.map((side) => side.runs) as [SuiteRun[], SuiteRun[] | undefined];
  for (const run of sides.flatMap((side) => side.runs)) console.log(runLine(run, cores));
  const passed = sides.every((side) => allPassed(side.runs));
  if (!passed) console.log('  a run did not pass every test: its figures time a failing suite');
  if (!theirs) return passed ? 0 : 1;
  const verdict = verdictOf(mine, theirs);
  for (const line of verdictLines(verdict, mine, theirs)) console.log(line);
  return passed && verdict.met ? 0 : 1;
}

const options = optionsOrExit(COMMAND, process.argv.slice(2), (argv): Options | 'help' => {
  const { values } = readFlags(COMMAND, argv);
  if (values.help) return 'help';
  return {
    commit: resolved('--commit', values.commit ?? 'HEAD'),
    against: values.against === undefined ? undefined : resolved('--against', values.against),
    rounds: integerFlag('--rounds', values.rounds, { min: 1, max: 5 }, 1),
  };
});
if (typeof options === 'number') process.exitCode = options;
else {
  try {
    process.exitCode = await main(options);
  } catch (error) {
    // A stop signal (the clone already removed), a failed clone or npm ci: said in one line.
    process.stderr.write(`bench:suite: ${(error as Error).message}\n`);
    process.exitCode = stoppedBy ? 128 + constants.signals[stoppedBy] : 1;
  }
}
