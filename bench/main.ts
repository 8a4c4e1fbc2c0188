/**
 * `npm run bench -- [--quick] [--output FILE]`: the figures of one run on this machine, printed
 * side by side with their targets and written as JSON so runs can be compared; exits 1 when a
 * target is missed. See `--help`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { optionsOrExit } from '../command-line/flags.ts';
import { COMMAND, parseBenchFlags } from './options.ts';
import { valgrindMissing } from './cachegrind.ts';
import { printReport } from './print.ts';
import { runBench } from './run.ts';

async function main(argv: string[]): Promise<void> {
  const options = optionsOrExit(COMMAND, argv, parseBenchFlags);
  if (typeof options === 'number') {
    process.exitCode = options;
    return;
  }
  const missing = options.skip.has('instructions') ? undefined : valgrindMissing();
  if (missing) {
    process.stderr.write(`bench: ${missing}\n`);
    process.exitCode = 2;
    return;
  }
  const report = await runBench(options);
  process.stdout.write(`${printReport(report)}\n\nWhole run: ${report.wallS.toFixed(1)} s\n`);
  mkdirSync(dirname(options.output), { recursive: true });
  writeFileSync(options.output, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`Figures written to ${options.output}\n`);
  const missed = report.targets.filter((verdict) => !verdict.met);
  if (missed.length > 0) {
    process.stdout.write(`${missed.length} target(s) missed: ${missed.map((v) => v.id).join(', ')}\n`);
    process.exitCode = 1;
  }
}

await main(process.argv.slice(2));
