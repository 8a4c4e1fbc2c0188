/**
 * `npm run conformance:traffic-bench`: how fast and in how much memory `--traffic` judges a day's
 * recording, each figure next to its floor measured in the same run. The floor is reading the same
 * file the same way and `JSON.parse`-ing each entry and its body (`traffic-floor.ts`); judging
 * (`traffic-judge.ts`) runs on one thread, in a fresh process, so its memory is its own. Printed
 * side by side:
 *
 * - speed: 100,000 exchanges of a mixed day (list pages and walk details, the same walks again and
 *   again) and of a distinct day (every exchange another walk), at the default budget: exchanges
 *   per CPU-second judged and at the floor, and their ratio (goal <= 3);
 * - memory: peak RSS judging 400,000 and 800,000 distinct walks, at the default budget and at
 *   32 MB (goals: <= 400 MB at the default for 400,000; 800,000 within 10 % of 400,000; peak
 *   <= budget + 150 MB), the cross-exchange state spilling past its budget (`--traffic-memory`);
 * - spill: writing and reading back spilled records with the SQLite this Node runs
 *   (`traffic-spill.ts`), and its installed size.
 *
 * Figures are printed, never asserted by a test.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CommandSpec, integerFlag, optionsOrExit, readFlags } from '../../command-line/flags.ts';
import { LAUNCHER } from '../../command-line/launch.js';
import { ROOT } from '../../command-line/bundle.js';
import { DEFAULT_MEMORY_BYTES } from '../../conformance/run/traffic.ts';
import type { ProcessFigures } from './traffic-figures.ts';
import { sampleAnswers, type Scenario, writeRecording } from './traffic-recording.ts';

const FLOOR = fileURLToPath(new URL('./traffic-floor.ts', import.meta.url));
const JUDGE = fileURLToPath(new URL('./traffic-judge.ts', import.meta.url));
const SPILL = fileURLToPath(new URL('./traffic-spill.ts', import.meta.url));

const MB = 1024 * 1024;
const GOALS = { ratioToFloor: 3, peakRssMb: 400, overBudgetMb: 150, growth: 1.1 } as const;
/** The budgets the memory figures are measured at: the default, and a small one. */
const BUDGETS = [DEFAULT_MEMORY_BYTES, 32 * MB] as const;
const DEFAULTS = { exchanges: 100_000, distinct: 400_000 } as const;

const COMMAND = {
  name: 'conformance:traffic-bench',
  usage: 'npm run conformance:traffic-bench [-- --exchanges N --distinct N]',
  summary: `Generates recordings of real reference-server answers in a temporary directory and judges
them with --traffic on one thread, each figure next to its floor (reading the same file and
JSON.parse-ing each entry and its body) measured in the same run:
  speed:  ${DEFAULTS.exchanges} exchanges of a mixed day and of a distinct day; exchanges per
          CPU-second and the ratio to the floor (goal <= ${GOALS.ratioToFloor});
  memory: ${DEFAULTS.distinct} and twice as many distinct walks, at the default budget and at
          32MB; peak RSS (goals <= ${GOALS.peakRssMb} MB at the default, the larger within 10 %);
  spill:  the SQLite this Node spills to: records written and read per CPU-second, installed size.
The files are removed afterwards.`,
  flags: {
    exchanges: {
      type: 'string',
      value: 'N',
      help: `Exchanges of each speed figure's day (default ${DEFAULTS.exchanges})`,
    },
    distinct: {
      type: 'string',
      value: 'N',
      help: `Distinct walks of the smaller memory figure, the larger twice as many (default ${DEFAULTS.distinct}; 0 skips them)`,
    },
  },
  sections: [{ title: 'Exit status', text: '  0 every goal met; 1 a goal missed; 2 usage.' }],
} as const satisfies CommandSpec;

interface Judged extends ProcessFigures {
  exchanges: number;
  judged: number;
  verdict: string;
  failed: string[];
}

interface Floor extends ProcessFigures {
  exchanges: number;
  bodies: number;
}

/** Runs one half in a fresh process, which reports its own figures as one JSON line. */
async function child<T>(script: string, args: string[], nodeFlags: string[] = []): Promise<T> {
  const process_ = spawn(process.execPath, [...nodeFlags, LAUNCHER, script, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  process_.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [status] = (await once(process_, 'exit')) as [number | null];
  if (status !== 0) throw new Error(`${script} exited ${status}`);
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as T;
}

const perCpuSecond = (n: number, figures: ProcessFigures) => n / (figures.cpuMs / 1000);
const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
const mb = (n: number) => `${n.toFixed(0)} MB`;

/** A recording of the scenario, its floor, and the judge at each budget given. */
async function measure(
  dir: string,
  scenario: Scenario,
  exchanges: number,
  sample: Awaited<ReturnType<typeof sampleAnswers>>,
  budgets: readonly number[],
) {
  const file = join(dir, `${scenario}-${exchanges}.har`);
  const bytes = await writeRecording(file, scenario, exchanges, sample);
  const floor = await child<Floor>(FLOOR, [file]);
  const judged: Judged[] = [];
  for (const budget of budgets) judged.push(await child<Judged>(JUDGE, [file, String(budget)]));
  rmSync(file, { force: true });
  return { bytes, floor, judged };
}

interface Spill {
  engine: string;
  records: number;
  writePerCpuSecond: number;
  readPerCpuSecond: number;
  installedKb: number;
}

const verdictOf = (j: Judged) => `${j.verdict}${j.failed.length ? `: ${j.failed.join(', ')}` : ''}`;
const cpu = (f: ProcessFigures) => `${(f.cpuMs / 1000).toFixed(1)} s CPU`;

async function main(options: { exchanges: number; distinct: number }): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'traffic-bench-'));
  const load = () => `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`;
  let met = true;
  try {
    const sample = await sampleAnswers();
    console.log(`traffic benchmark, one thread, ${process.version} (${load()}); CPU time of each process`);
    console.log(`  speed, ${options.exchanges} exchanges, default budget (${DEFAULT_MEMORY_BYTES / MB}MB):`);
    for (const scenario of ['mixed', 'distinct'] as const) {
      const { bytes, floor, judged } = await measure(dir, scenario, options.exchanges, sample, [
        DEFAULT_MEMORY_BYTES,
      ]);
      const [judge] = judged as [Judged];
      const ratio = judge.cpuMs / floor.cpuMs;
      met &&= ratio <= GOALS.ratioToFloor;
      console.log(
        `    ${scenario.padEnd(8)} judged ${perCpuSecond(judge.judged, judge).toFixed(0)}/s (${cpu(judge)}) · floor ${perCpuSecond(floor.exchanges, floor).toFixed(0)}/s (${cpu(floor)}) · ratio ${ratio.toFixed(2)} (goal <= ${GOALS.ratioToFloor}: ${mark(ratio <= GOALS.ratioToFloor)}) · ${mb(bytes / MB)} of HAR, verdict ${verdictOf(judge)} · ${load()}`,
      );
    }
    if (options.distinct > 0) {
      console.log('  memory, distinct walks: peak RSS by budget (floor: reading and parsing alone)');
      const peaks: number[][] = [];
      for (const walks of [options.distinct, options.distinct * 2]) {
        const { bytes, floor, judged } = await measure(dir, 'distinct', walks, sample, BUDGETS);
        peaks.push(judged.map((j) => j.maxRssMb));
        const cells = judged.map((j, i) => {
          const budgetMb = (BUDGETS[i] as number) / MB;
          const within = j.maxRssMb <= budgetMb + GOALS.overBudgetMb;
          met &&= within;
          return `${budgetMb}MB ${mb(j.maxRssMb)} (${cpu(j)}; <= budget + ${GOALS.overBudgetMb}: ${mark(within)})`;
        });
        console.log(
          `    ${String(walks).padStart(9)} walks (${mb(bytes / MB)} of HAR): ${cells.join(' · ')} · floor ${mb(floor.maxRssMb)} · verdict ${verdictOf(judged[0] as Judged)} · ${load()}`,
        );
      }
      const [small, large] = peaks as [number[], number[]];
      const defaultMet = (small[0] as number) <= GOALS.peakRssMb;
      const growths = large.map((peak, i) => peak / (small[i] as number));
      const flat = growths.every((g) => g <= GOALS.growth);
      met &&= defaultMet && flat;
      console.log(
        `    default budget at ${options.distinct} walks <= ${GOALS.peakRssMb} MB: ${mark(defaultMet)} · twice the walks ÷ once: ${growths.map((g) => g.toFixed(2)).join(', ')} (goal <= ${GOALS.growth}: ${mark(flat)})`,
      );
    }
    const spill = await child<Spill>(SPILL, []);
    console.log(
      `  spill, ${spill.records} records to ${spill.engine}: written ${spill.writePerCpuSecond.toFixed(0)}/s, read back ${spill.readPerCpuSecond.toFixed(0)}/s of CPU · installed ${spill.installedKb} KB`,
    );
    return met;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const options = optionsOrExit(COMMAND, process.argv.slice(2), (argv) => {
  const { values } = readFlags(COMMAND, argv);
  if (values.help) return 'help';
  return {
    exchanges: integerFlag('--exchanges', values.exchanges, { min: 1, max: 10_000_000 }, DEFAULTS.exchanges),
    distinct: integerFlag('--distinct', values.distinct, { min: 0, max: 10_000_000 }, DEFAULTS.distinct),
  };
});
if (typeof options === 'number') process.exitCode = options;
else process.exitCode = (await main(options)) ? 0 : 1;
