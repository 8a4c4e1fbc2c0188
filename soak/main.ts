/**
 * `npm run soak -- [options]`: a bounded load on the reference server, reported per round (requests,
 * errors, memory after GC), written to reports/soak.json. Exit status: 0 pass, 1 a criterion
 * failed, 2 bad options or a server that could not be started.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  DEFAULT_OPTIONS,
  percent,
  QUICK_OPTIONS,
  runSoak,
  type SoakOptions,
  type SoakReport,
} from './soak.ts';

const USAGE = `Usage: npm run soak -- [options]

Loads the reference server (in its own process) with a mix of list, detail and error requests,
and checks that no answer is unexpected and that memory stays flat.

Options:
  --quick              ${QUICK_OPTIONS.rounds} rounds of ${QUICK_OPTIONS.durationSeconds} s at ${QUICK_OPTIONS.connections} connections (a smoke run)
  --rounds N           rounds (default ${DEFAULT_OPTIONS.rounds})
  --duration S         seconds per round (default ${DEFAULT_OPTIONS.durationSeconds})
  --connections N      concurrent connections (default ${DEFAULT_OPTIONS.connections})
  --max-growth P       largest memory growth in percent, round 1 to the last (default ${DEFAULT_OPTIONS.maxMemoryGrowth * 100})
  --rate-limit N/min   start the server with this per-key rate limit (its 429s then count as errors)
  --output PATH        the JSON report (default reports/soak.json)
  --help               show this help

Passes when no round has an unexpected status, a socket error or a timeout, and RSS and heap
after GC grow at most --max-growth from round 1 to the last.
`;

const MB = 1024 * 1024;

interface Cli {
  options: SoakOptions;
  output: string;
  help: boolean;
}

export function parseCli(argv: string[]): Cli {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      quick: { type: 'boolean' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      'max-growth': { type: 'string' },
      'rate-limit': { type: 'string' },
      output: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const base = values.quick ? QUICK_OPTIONS : DEFAULT_OPTIONS;
  const options: SoakOptions = {
    ...base,
    rounds: integer('--rounds', values.rounds, base.rounds, 2, 100),
    durationSeconds: integer('--duration', values.duration, base.durationSeconds, 1, 3_600),
    connections: integer('--connections', values.connections, base.connections, 1, 1_024),
    maxMemoryGrowth:
      integer('--max-growth', values['max-growth'], base.maxMemoryGrowth * 100, 0, 1_000) / 100,
  };
  if (values['rate-limit'] !== undefined) {
    const match = /^([0-9]+)(?:\/min)?$/.exec(values['rate-limit']);
    const rate = match ? Number(match[1]) : 0;
    if (!(rate >= 1 && rate <= 1_000_000)) throw new RangeError('--rate-limit must look like 600/min');
    options.rateLimit = rate;
  }
  return { options, output: resolve(values.output ?? 'reports/soak.json'), help: values.help ?? false };
}

function integer(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max))
    throw new RangeError(`${name} must be an integer from ${min} to ${max}`);
  return value;
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
  let cli: Cli;
  try {
    cli = parseCli(argv);
  } catch (error) {
    process.stderr.write(`soak: ${(error as Error).message}\nTry --help.\n`);
    return 2;
  }
  if (cli.help) {
    process.stdout.write(USAGE);
    return 0;
  }
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
