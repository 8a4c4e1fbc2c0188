/**
 * The judging half of `npm run conformance:traffic-bench`, in a process of its own so its memory
 * is the judge's alone: judges the recording it is given with `--traffic`'s run, on one thread,
 * and prints one JSON line of figures (wall and CPU time, peak RSS, exchanges judged, verdict).
 * A second argument is the memory budget of the cross-exchange state (`--traffic-memory`).
 */
import { judgeRecording } from '../../conformance/run/traffic.ts';
import { RULES } from '../../conformance/rules/registry.ts';
import { specModelFor } from '../../conformance/run/runner.ts';
import { figuresOf, startFigures } from './traffic-figures.ts';

const [file, memory] = process.argv.slice(2);
if (!file) throw new Error('usage: traffic-judge.ts FILE [MEMORY_BYTES]');

const started = startFigures();
const run = await judgeRecording(
  specModelFor(),
  {
    file,
    strict: false,
    seed: 1,
    keys: {},
    ...(memory ? { memoryBytes: Number(memory) } : {}),
  },
  RULES,
);
run.close();
const { report } = run;
const traffic = report.coverage?.traffic;
process.stdout.write(
  `${JSON.stringify({
    ...figuresOf(started),
    exchanges: traffic?.entries ?? 0,
    judged: traffic?.judged ?? 0,
    verdict: report.summary.verdict,
    failed: report.results.filter((r) => r.status === 'fail').map((r) => r.id),
  })}\n`,
);
