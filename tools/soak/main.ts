/**
 * `npm run soak -- [options]`: a bounded load on the reference server, reported per round (requests,
 * errors, memory after GC), written to reports/soak.json. Exit status: 0 pass, 1 a criterion
 * failed, 2 bad options or a server that could not be started.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { CommandSpec } from '../../command-line/flags.ts';
import { integerFlag, optionsOrExit, rateLimitFlag, readFlags } from '../../command-line/flags.ts';
import {
  DEFAULT_OPTIONS,
  percent,
  QUICK_OPTIONS,
  runSoak,
  type SoakOptions,
  type SoakReport,
} from './soak.ts';

const COMMAND = {
  name: 'soak',
  usage: 'npm run soak -- [options]',
  summary: `Loads the reference server (in its own process) with a mix of list, detail and error requests,
and checks that no answer is unexpected and that memory stays flat.`,
  flags: {
    quick: {
      type: 'boolean',
      help: `${QUICK_OPTIONS.rounds} rounds of ${QUICK_OPTIONS.durationSeconds} s at ${QUICK_OPTIONS.connections} connections (a smoke run)`,
    },
    rounds: { type: 'string', value: 'N', help: `Rounds (default ${DEFAULT_OPTIONS.rounds})` },
    duration: {
      type: 'string',
      value: 'S',
      help: `Seconds per round (default ${DEFAULT_OPTIONS.durationSeconds})`,
    },
    connections: {
      type: 'string',
      value: 'N',
      help: `Concurrent connections (default ${DEFAULT_OPTIONS.connections})`,
    },
    'max-growth': {
      type: 'string',
      value: 'P',
      help: `Largest memory growth in percent, round 1 to the last (default ${DEFAULT_OPTIONS.maxMemoryGrowth * 100})`,
    },
    'rate-limit': {
      type: 'string',
      value: 'N/min',
      help: 'Start the server with this per-key rate limit (its 429s then count as errors)',
    },
    output: { type: 'string', value: 'PATH', help: 'The JSON report (default reports/soak.json)' },
  },
  sections: [
    {
      title: 'Passes when',
      text: `  no round has an unexpected status, a socket error or a timeout, and RSS and heap
  after GC grow at most --max-growth from round 1 to the last.`,
    },
  ],
} as const satisfies CommandSpec;

const MB = 1024 * 1024;

interface Cli {
  options: SoakOptions;
  output: string;
}

/** The soak's options, or `'help'` for `--help`. */
export function parseCli(argv: string[]): Cli | 'help' {
  const { values } = readFlags(COMMAND, argv);
  if (values.help) return 'help';
  const base = values.quick ? QUICK_OPTIONS : DEFAULT_OPTIONS;
  const options: SoakOptions = {
    ...base,
    rounds: integerFlag('--rounds', values.rounds, { min: 2, max: 100 }, base.rounds),
    durationSeconds: integerFlag('--duration', values.duration, { min: 1, max: 3_600 }, base.durationSeconds),
    connections: integerFlag('--connections', values.connections, { min: 1, max: 1_024 }, base.connections),
    maxMemoryGrowth:
      integerFlag('--max-growth', values['max-growth'], { min: 0, max: 1_000 }, base.maxMemoryGrowth * 100) /
      100,
  };
  if (values['rate-limit'] !== undefined)
    options.rateLimit = rateLimitFlag('--rate-limit', values['rate-limit']);
  return { options, output: resolve(values.output ?? 'reports/soak.json') };
}

export function formatReport(report: SoakReport): string {
  const header = ['round', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'RSS MB', 'heap MB'];
  const rows = [
    ['base', '', '', '', '', '', mb(report.baselineMemory.rssBytes), mb(report.baselineMemory.heapUsedBytes)],
    ...report.rounds.map((round) => [
      String(round.round),
      String(round.requests),
      String(round.requestsPerSecond),
      String(round.latencyP50Ms),
      String(round.latencyP99Ms),
      String(round.errors.total),
      mb(round.memory.rssBytes),
      mb(round.memory.heapUsedBytes),
    ]),
  ];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  const { options } = report;
  return [
    `soak: ${options.rounds} rounds of ${options.durationSeconds} s at ${options.connections} connections` +
      ` (after a ${options.warmupSeconds} s warm-up)${options.rateLimit ? `, server rate limit ${options.rateLimit}/min` : ''}`,
    '',
    line(header),
    ...rows.map(line),
    '',
    `memory after GC, round 1 → ${report.rounds.length}: RSS ${percent(report.memoryGrowth.rss)}, heap ${percent(report.memoryGrowth.heapUsed)}` +
      ` (limit ${percent(options.maxMemoryGrowth)})`,
    ...report.failures.map((failure) => `FAIL ${failure}`),
    `verdict: ${report.verdict}`,
    '',
  ].join('\n');
}

function mb(bytes: number): string {
  return (bytes / MB).toFixed(1);
}

async function main(argv: string[]): Promise<number> {
  const cli = optionsOrExit(COMMAND, argv, parseCli);
  if (typeof cli === 'number') return cli;
  let report: SoakReport;
  try {
    report = await runSoak(cli.options);
  } catch (error) {
    process.stderr.write(`soak: ${(error as Error).message}\n`);
    return 2;
  }
  process.stdout.write(formatReport(report));
  await mkdir(dirname(cli.output), { recursive: true });
  await writeFile(cli.output, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`report: ${cli.output}\n`);
  return report.verdict === 'pass' ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  process.exitCode = await main(process.argv.slice(2));
}
