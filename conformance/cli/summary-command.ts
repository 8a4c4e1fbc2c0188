/**
 * `canvassing-conformance-summary REPORT.json [--said FILE]`: prints the job summary of a
 * `--reporter json` report; with `--said`, a run that wrote no report is summarised by what it
 * printed (the lines of FILE, in a block Markdown cannot break out of).
 */
import { existsSync, readFileSync } from 'node:fs';
import {
  type CommandSpec,
  EXIT_USAGE,
  optionsOrExit,
  packagedVersion,
  readFlags,
  UsageError,
} from '../../command-line/flags.ts';
import type { Report } from '../core/report-model.ts';
import { jobSummary, notRunSummary } from '../reporters/job-summary.ts';

const COMMAND = {
  name: 'canvassing-conformance-summary',
  usage: 'canvassing-conformance-summary REPORT.json [--said FILE]',
  summary:
    'Prints the Markdown job summary (for $GITHUB_STEP_SUMMARY) of a conformance report written\nwith --reporter json.',
  positionals: 'REPORT.json',
  flags: {
    said: {
      type: 'string',
      value: 'FILE',
      help: 'What the run printed (its stderr): summarised instead when REPORT.json does not exist',
    },
  },
  sections: [
    { title: 'Exit status', text: '  0 printed; 2 no report, or a file that is not a JSON report.' },
  ],
  version: packagedVersion('canvassing-conformance-summary'),
} as const satisfies CommandSpec;

function optionsOf(argv: string[]): { path: string; said?: string } | 'help' {
  const { values, positionals } = readFlags(COMMAND, argv);
  if (values.help) return 'help';
  if (positionals.length !== 1) {
    throw new UsageError(`expected one REPORT.json, got ${positionals.length} arguments`);
  }
  return { path: positionals[0] as string, ...(values.said !== undefined ? { said: values.said } : {}) };
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
  const options = optionsOrExit(COMMAND, argv, optionsOf);
  if (typeof options === 'number') return options;
  const { path, said } = options;
  try {
    if (said !== undefined && !existsSync(path)) {
      process.stdout.write(notRunSummary(existsSync(said) ? readFileSync(said, 'utf8') : ''));
      return 0;
    }
    process.stdout.write(jobSummary(readReport(path)));
    return 0;
  } catch (error) {
    process.stderr.write(`${COMMAND.name}: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  }
}

process.exitCode = main(process.argv.slice(2));
