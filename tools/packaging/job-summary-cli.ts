/** `canvassing-conformance-summary REPORT.json`: prints the job summary of a `--reporter json` report. */
import { readFileSync } from 'node:fs';
import {
  type CommandSpec,
  EXIT_USAGE,
  optionsOrExit,
  packagedVersion,
  readFlags,
  UsageError,
} from '../../command-line/flags.ts';
import type { Report } from '../../conformance/core/types.ts';
import { jobSummary } from './job-summary.ts';

const COMMAND = {
  name: 'canvassing-conformance-summary',
  usage: 'canvassing-conformance-summary REPORT.json',
  summary:
    'Prints the Markdown job summary (for $GITHUB_STEP_SUMMARY) of a conformance report written\nwith --reporter json.',
  positionals: 'REPORT.json',
  flags: {},
  sections: [
    { title: 'Exit status', text: '  0 printed; 2 no report, or a file that is not a JSON report.' },
  ],
  version: packagedVersion('canvassing-conformance-summary'),
} as const satisfies CommandSpec;

function reportPath(argv: string[]): string | 'help' {
  const { values, positionals } = readFlags(COMMAND, argv);
  if (values.help) return 'help';
  if (positionals.length !== 1) {
    throw new UsageError(`expected one REPORT.json, got ${positionals.length} arguments`);
  }
  return positionals[0] as string;
}

/** The report, or why it cannot be summarised (exit 2: the input is unusable, like a usage mistake). */
function readReport(path: string): Report {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new Error(`cannot read ${path} (${code})`, { cause: error });
  }
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch {
    report = undefined;
  }
  // The parts the summary reads: anything else is not a `--reporter json` report.
  const parts = ['summary', 'spec', 'target', 'tool', 'results'] as const;
  if (typeof report !== 'object' || report === null || parts.some((part) => !(part in report))) {
    throw new Error(`${path} is not a conformance report; give one written with --reporter json`);
  }
  return report as Report;
}

function main(argv: string[]): number {
  const path = optionsOrExit(COMMAND, argv, reportPath);
  if (typeof path === 'number') return path;
  try {
    process.stdout.write(jobSummary(readReport(path)));
    return 0;
  } catch (error) {
    process.stderr.write(`${COMMAND.name}: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  }
}

process.exitCode = main(process.argv.slice(2));
