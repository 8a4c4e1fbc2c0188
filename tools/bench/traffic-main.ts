/**
 * `npm run conformance:traffic-bench`: how fast and in how much memory `--traffic` judges a day's
 * recording, each figure next to its floor measured in the same run. The floor is reading the same
 * file the same way and `JSON.parse`-ing each entry and its body (`traffic-floor.ts`); judging
 * (`traffic-judge.ts`) runs on one thread, in a fresh process, so its memory is its own.
 *
 * - speed: 100,000 exchanges of a mixed day (list pages and walk details, the same walks again
 *   and again): exchanges per CPU-second judged and at the floor, and their ratio (goal <= 3);
 * - memory: 400,000 exchanges over 400,000 distinct walk ids: peak RSS judged and at the floor
 *   (goal <= 400 MB), the cross-exchange state spilling past its budget (`--traffic-memory`); once
 *   at the defaults, and once with V8's old space capped (`CAPPED`), since V8 lets a heap whose
 *   collections are cheap grow to several times what it holds live.
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
import type { ProcessFigures } from './traffic-figures.ts';
import { sampleAnswers, type Scenario, writeRecording } from './traffic-recording.ts';

const FLOOR = fileURLToPath(new URL('./traffic-floor.ts', import.meta.url));
const JUDGE = fileURLToPath(new URL('./traffic-judge.ts', import.meta.url));

const GOALS = { ratioToFloor: 3, peakRssMb: 400 } as const;
/** The capped memory run: V8's old space and the state's budget, as `NODE_OPTIONS` and `--traffic-memory` give them. */
const CAPPED = { oldSpaceMb: 192, stateBytes: 64 * 1024 * 1024 } as const;
const DEFAULTS = { exchanges: 100_000, distinct: 400_000 } as const;

const COMMAND = {
  name: 'conformance:traffic-bench',
  usage: 'npm run conformance:traffic-bench [-- --exchanges N --distinct N]',
  summary: `Generates recordings of real reference-server answers in a temporary directory and judges
them with --traffic on one thread, each figure next to its floor (reading the same file and
JSON.parse-ing each entry and its body) measured in the same run:
  speed:  ${DEFAULTS.exchanges} exchanges of a mixed day; exchanges per CPU-second and the ratio to
          the floor (goal <= ${GOALS.ratioToFloor});
  memory: ${DEFAULTS.distinct} exchanges over as many distinct walk ids; peak RSS (goal <= ${GOALS.peakRssMb} MB).
The files are removed afterwards.`,
  flags: {
    exchanges: {
      type: 'string',
      value: 'N',
      help: `Exchanges of the mixed day (default ${DEFAULTS.exchanges})`,
    },
    distinct: {
      type: 'string',
      value: 'N',
      help: `Exchanges over distinct walk ids (default ${DEFAULTS.distinct}; 0 skips the memory figure)`,
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

async function measure(
  dir: string,
  scenario: Scenario,
  exchanges: number,
  sample: Awaited<ReturnType<typeof sampleAnswers>>,
) {
  const file = join(dir, `${scenario}.har`);
  const bytes = await writeRecording(file, scenario, exchanges, sample);
  const floor = await child<Floor>(FLOOR, [file]);
  const judged = await child<Judged>(JUDGE, [file]);
  const capped =
    scenario === 'distinct'
      ? await child<Judged>(
          JUDGE,
          [file, String(CAPPED.stateBytes)],
          [`--max-old-space-size=${CAPPED.oldSpaceMb}`],
        )
      : undefined;
  rmSync(file, { force: true });
  return { bytes, floor, judged, capped };
}

async function main(options: { exchanges: number; distinct: number }): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'traffic-bench-'));
  try {
    const sample = await sampleAnswers();
    const load = () => `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`;
    const speed = await measure(dir, 'mixed', options.exchanges, sample);
    const rate = perCpuSecond(speed.judged.judged, speed.judged);
    const floorRate = perCpuSecond(speed.floor.exchanges, speed.floor);
    const ratio = speed.judged.cpuMs / speed.floor.cpuMs;
    const fast = ratio <= GOALS.ratioToFloor;
    console.log(`traffic benchmark, one thread (${load()}); CPU time of each process, wall time beside it`);
    console.log(
      `  speed   ${options.exchanges} exchanges of a mixed day, ${mb(speed.bytes / 1024 / 1024)} of HAR (verdict ${speed.judged.verdict}${speed.judged.failed.length ? `: ${speed.judged.failed.join(', ')}` : ''})`,
    );
    console.log(
      `          judged ${rate.toFixed(0)} exchanges/s (${(speed.judged.cpuMs / 1000).toFixed(1)} s CPU, ${(speed.judged.ms / 1000).toFixed(1)} s wall) · floor ${floorRate.toFixed(0)} exchanges/s (${(speed.floor.cpuMs / 1000).toFixed(1)} s CPU, ${(speed.floor.ms / 1000).toFixed(1)} s wall)`,
    );
    console.log(
      `          ratio to the floor ${ratio.toFixed(2)} · goal <= ${GOALS.ratioToFloor}: ${mark(fast)}`,
    );
    let small = true;
    if (options.distinct > 0) {
      const memory = await measure(dir, 'distinct', options.distinct, sample);
      small = memory.judged.maxRssMb <= GOALS.peakRssMb;
      const capped = memory.capped as Judged;
      console.log(
        `  memory  ${options.distinct} exchanges over ${options.distinct} distinct walk ids, ${mb(memory.bytes / 1024 / 1024)} of HAR (verdict ${memory.judged.verdict}${memory.judged.failed.length ? `: ${memory.judged.failed.join(', ')}` : ''})`,
      );
      console.log(
        `          judged: peak RSS ${mb(memory.judged.maxRssMb)} (${(memory.judged.cpuMs / 1000).toFixed(1)} s CPU) · floor: peak RSS ${mb(memory.floor.maxRssMb)} (${(memory.floor.cpuMs / 1000).toFixed(1)} s CPU) · goal <= ${GOALS.peakRssMb} MB: ${mark(small)}`,
      );
      console.log(
        `          capped (NODE_OPTIONS=--max-old-space-size=${CAPPED.oldSpaceMb}, --traffic-memory ${CAPPED.stateBytes / 1024 / 1024}MB): peak RSS ${mb(capped.maxRssMb)} (${(capped.cpuMs / 1000).toFixed(1)} s CPU, verdict ${capped.verdict}) · goal <= ${GOALS.peakRssMb} MB: ${mark(capped.maxRssMb <= GOALS.peakRssMb)}`,
      );
    }
    return fast && small;
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
