/**
 * The command line: configuration in, report out, exit status per the contract — 0 every required
 * check holds, 1 a required check failed on a target that was reached and accepted the key, 2 the
 * run could not judge the deployment (unusable configuration, or a pre-flight that stopped it).
 */
import { mkdir, open, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RULES } from '../rules/registry.ts';
import { compareReports, loadPreviousReport } from '../run/compare.ts';
import { UsageError, usageMessage } from '../../command-line/flags.ts';
import type { Output } from '../../command-line/output.ts';
import type { CliOptions } from './config.ts';
import type { KeyName } from '../core/configuration.ts';
import type { Exchange } from '../core/exchange.ts';
import type { Report } from '../core/report-model.ts';
import { ConfigError } from '../core/config-error.ts';
import { durationText } from '../core/duration.ts';
import { helpFor, parseCli } from './config.ts';
import { CREDENTIAL_KEY_NAMES } from '../../spec/facts.ts';
import { applyExpectedFailures, loadExpectedFailures } from '../run/expectations.ts';
import { harText } from '../reporters/har.ts';
import { preflight } from '../run/preflight/preflight.ts';
import { reachSecrets } from '../transport/reach.ts';
import type { Redactor } from '../core/redact.ts';
import { redactorFor } from '../core/redact.ts';
import { consoleReport, pathLines } from '../reporters/console.ts';
import { formatReport } from '../reporters/format.ts';
import { Progress } from './progress.ts';
import { inferenceLine } from '../core/pagination.ts';
import { runLive, specModelFor } from '../run/runner.ts';
import { selectChecks } from '../run/selection.ts';
import { resolveTarget } from '../run/target.ts';
import { mergeTraffic, judgeRecording, judgeRecordingShard, type TrafficOptions } from '../run/traffic.ts';
import { type Shard, writeShardFile } from '../run/shards.ts';
import { redactedValue } from '../transport/recordings/secrets.ts';

export interface Io extends Output {
  /** Colour the console report (main.ts: stdout is a terminal and NO_COLOR is not set). */
  color?: boolean;
  /** Stdout is a terminal: a live progress line while the run runs (main.ts). */
  live?: boolean;
  /** The command as it was run, for `--help` (main.ts: the packaged bin's name, or the npm script). */
  program?: string;
  /** What `--traffic -` reads (default: the process's standard input). */
  stdin?: NodeJS.ReadableStream;
}

const EXIT = { pass: 0, fail: 1, unusable: 2 } as const;

export async function main(argv: string[], env: Record<string, string | undefined>, io: Io): Promise<number> {
  const session: Session = { redact: redactorFor(keysOf(env)) };
  try {
    const options = parseCli(argv, env);
    session.redact = redactorFor(options.config.keys, reachSecrets(options.config.reach));
    if (options.help) {
      io.stdout(helpFor(io.program));
      return EXIT.pass;
    }
    if (options.version !== undefined) {
      io.stdout(`${options.version}\n`);
      return EXIT.pass;
    }
    const declared = RULES;
    const checks = selectChecks(declared, options.config.only, options.skip);
    if (options.list) {
      io.stdout(
        checks.map((c) => `${c.id}\t${c.drift ? 'drift' : c.level}\t${c.section}\t${c.title}\n`).join(''),
      );
      return EXIT.pass;
    }
    // The files are checked before anything is sent: a bad one is unusable configuration (exit 2).
    const expected = options.expectFailures
      ? loadExpectedFailures(options.expectFailures, declared)
      : undefined;
    const previous = options.compare ? loadPreviousReport(options.compare) : undefined;
    for (const op of specModelFor(options.config.specPath).live) {
      const inferred = op.pagination && inferenceLine(op, op.pagination);
      if (inferred) io.stderr(inferred);
    }
    if (options.shard && options.traffic !== undefined)
      return await judgeShard(options, options.shard, options.traffic, session, io);
    const run = await withinMaxDuration(judgeRun(options, session, io), options.config.maxDurationMs);
    session.progress?.finish();
    const { redact } = session;
    let report = run.report;
    if (expected && options.expectFailures)
      report = applyExpectedFailures(report, options.expectFailures, expected);
    if (previous && options.compare)
      report = { ...report, comparison: compareReports(report, previous, options.compare) };
    const written: string[] = [];
    if (options.har) written.push(await writeReport(options.har, harText(run.exchanges, report, redact)));
    for (const reporter of options.reporters) {
      if (!reporter.output) continue;
      if (reporter.name === 'json' && run.findings) {
        written.push(await writeJsonReport(reporter.output, report, redact, run.findings));
        continue;
      }
      written.push(await writeReport(reporter.output, formatReport(reporter.name, report, redact)));
    }
    printOutcome(report, { ...options, written, color: io.color === true }, io, redact);
    return exitStatusOf(report);
  } catch (error) {
    io.stderr(session.redact(errorMessage(error)));
    return EXIT.unusable;
  } finally {
    session.progress?.finish();
    await session.stop?.();
  }
}

/**
 * The run, or a stop with exit 2 once `--max-duration` has passed: the client stops
 * sending and waiting before then (`transport/client.ts`), so this ends only a run whose judging or
 * reporting would have overrun it.
 */
async function withinMaxDuration<T>(run: Promise<T>, maxDurationMs: number | undefined): Promise<T> {
  if (maxDurationMs === undefined) return run;
  let timer: NodeJS.Timeout | undefined;
  const over = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new RunOverTime(
            `the run reached --max-duration ${durationText(maxDurationMs)} before its report was ready (it was still judging); raise --max-duration`,
          ),
        ),
      maxDurationMs,
    );
  });
  try {
    return await Promise.race([run, over]);
  } finally {
    clearTimeout(timer);
  }
}

/** A run past `--max-duration`: exit 2 with one line. */
class RunOverTime extends ConfigError {}

/** What the output passes through, what shows the run's progress, and what stops the target after. */
interface Session {
  redact: Redactor;
  progress?: Progress;
  stop?: () => Promise<void>;
}

/** A run's report, and for a recording, every finding of each rule (the report holds the first ones). */
interface Judged {
  report: Report;
  exchanges: readonly Exchange[];
  findings?: (ruleId: string) => Iterable<string>;
}

/** The report: of the deployment the configuration names, of the `--traffic` recording, or of the shards merged. */
async function judgeRun(options: CliOptions, session: Session, io: Io): Promise<Judged> {
  if (options.traffic !== undefined || options.merge !== undefined) {
    const run =
      options.merge !== undefined
        ? await mergeShards(options, options.merge)
        : await judgeTrafficFile(options, options.traffic as string, io.stdin);
    session.redact = composeRedactors(session.redact, run.redact);
    session.stop = async () => run.close();
    return { report: run.report, exchanges: [], findings: (id) => run.findings(id) };
  }
  const target = await resolveTarget(options.config);
  session.stop = target.close;
  session.redact = redactorFor(target.secrets, options.config.keys, reachSecrets(options.config.reach));
  const selected = selectChecks(RULES, options.config.only, options.skip);
  const progress = new Progress({
    live: io.live === true,
    logRequests: options.logRequests,
    write: (text) => io.stdout(session.redact(text)),
  });
  session.progress = progress;
  // The pre-flight is handed the run's client before its first request: progress follows it from there.
  return runLive(
    target.config,
    selected,
    (client, config, spec) => {
      progress.attach(client);
      return preflight(client, config, spec);
    },
    (line) => io.stderr(session.redact(line)),
  );
}

/**
 * A judged run prints the console report, which ends with the report paths; a run the pre-flight
 * stopped prints only its one or two lines (stderr) and the paths of the reports that say so.
 */
function printOutcome(
  report: Report,
  options: Pick<CliOptions, 'verbosity'> & { written: string[]; color: boolean },
  io: Io,
  redact: Redactor,
): void {
  if (report.unreachable) {
    io.stderr(redact(`conformance: ${report.unreachable}\n`));
    if (options.written.length > 0) io.stdout(redact(`${pathLines(options.written).join('\n')}\n`));
    return;
  }
  const text = consoleReport(report, {
    verbosity: options.verbosity,
    color: options.color,
    reportPaths: options.written,
  });
  io.stdout(redact(text));
  if (report.overCap) io.stderr(redact(overCapLines(report.overCap)));
  if (report.notJudged) io.stderr(redact(`conformance: ${report.notJudged}\n`));
}

/** Which answer was larger than the cap, and the flag that raises it (two lines). */
function overCapLines(cut: string[]): string {
  const more = cut.length > 1 ? ` (and ${cut.length - 1} more)` : '';
  return `conformance: an answer larger than the size cap was not judged: ${cut[0]}${more}.
Raise --max-response-bytes to judge it.
`;
}

/** `--traffic`: the recording judged under the run's selection, strictness, seed and spec. */
async function judgeTrafficFile(options: CliOptions, file: string, input?: NodeJS.ReadableStream) {
  const rules = selectChecks(RULES, options.config.only, options.skip);
  return judgeRecording(specModelFor(options.config.specPath), trafficOptions(options, file, input), rules);
}

/** `--merge`: the shards' results joined, under the run's selection (the shards' own), spec and strictness. */
async function mergeShards(options: CliOptions, files: string[]) {
  const rules = selectChecks(RULES, options.config.only, options.skip);
  return mergeTraffic(
    specModelFor(options.config.specPath),
    {
      files,
      strict: options.config.strict,
      seed: options.config.seed,
      ...(options.trafficMemory !== undefined ? { memoryBytes: options.trafficMemory } : {}),
      ...(options.redactBodies ? { redactBodies: true } : {}),
    },
    rules,
  );
}

/**
 * `--traffic --shard I/N`: judges the shard's entries and writes its part of the verdict for
 * `--merge`; says in one line what it read and where it wrote it. Exit 0 once written.
 */
async function judgeShard(options: CliOptions, shard: Shard, file: string, session: Session, io: Io) {
  const rules = selectChecks(RULES, options.config.only, options.skip);
  const run = await judgeRecordingShard(
    specModelFor(options.config.specPath),
    { ...trafficOptions(options, file, io.stdin), shard },
    rules,
  );
  session.stop = async () => run.close();
  const redact = composeRedactors(session.redact, run.redact);
  session.redact = redact;
  const output = options.reporters.find((r) => r.name === 'json')?.output as string;
  try {
    await mkdir(dirname(output), { recursive: true });
    await writeShardFile(output, run.head, run.states, redactedValue(redact));
  } catch (error) {
    throw new ConfigError(
      `cannot write ${output}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const { head } = run;
  const ofApi = head.bases.reduce((n, b) => n + b.entries, 0);
  const judged = head.bases.reduce((n, b) => n + b.readable, 0);
  io.stdout(
    redact(
      `conformance: shard ${shard.index}/${shard.of} of --traffic ${file}: judged ${judged} of the ${ofApi} exchanges of this API it holds (${head.recording.entries} entries in the recording); the verdict is --merge's, with every shard's result
${pathLines([output]).join('\n')}
`,
    ),
  );
  return EXIT.pass;
}

function trafficOptions(options: CliOptions, file: string, input?: NodeJS.ReadableStream): TrafficOptions {
  const traffic: TrafficOptions = {
    file,
    ...(input ? { input } : {}),
    ...(options.trafficMemory !== undefined ? { memoryBytes: options.trafficMemory } : {}),
    ...(options.redactBodies ? { redactBodies: true } : {}),
    strict: options.config.strict,
    seed: options.config.seed,
    keys: options.config.keys,
  };
  if (options.config.baseUrl !== undefined) traffic.baseUrl = options.config.baseUrl;
  if (options.config.webBaseUrl !== undefined) traffic.webBaseUrl = options.config.webBaseUrl;
  return traffic;
}

const composeRedactors =
  (...redactors: Redactor[]): Redactor =>
  (text) =>
    redactors.reduce((out, redact) => redact(out), text);

function errorMessage(error: unknown): string {
  if (error instanceof UsageError) return usageMessage('conformance', error);
  return `conformance: internal error: ${(error as Error).message}\n`;
}

export function exitStatusOf(report: Report): number {
  if (report.unreachable) return EXIT.unusable;
  if (report.summary.verdict === 'not judged') return EXIT.unusable;
  // Answers too large to judge leave the run unjudged, unless a required check failed anyway.
  if (report.overCap && report.summary.verdict === 'pass') return EXIT.unusable;
  return report.summary.verdict === 'pass' ? EXIT.pass : EXIT.fail;
}

/**
 * The JSON report with every finding of each rule (a result in memory holds the first ones): the
 * report's text with each result's findings written out as they are read, redacted one by one.
 */
async function writeJsonReport(
  path: string,
  report: Report,
  redact: Redactor,
  findings: (ruleId: string) => Iterable<string>,
): Promise<string> {
  const streamed = report.results.filter((r) => r.findings !== undefined).map((r) => r.id);
  if (streamed.length === 0) return writeReport(path, formatReport('json', report, redact));
  const marker = (id: string) => `\u0000every finding of ${id}\u0000`;
  const skeleton = {
    ...report,
    results: report.results.map((r) => (r.findings === undefined ? r : { ...r, details: [marker(r.id)] })),
  };
  const text = formatReport('json', skeleton as Report, redact);
  try {
    await mkdir(dirname(path), { recursive: true });
    const file = await open(path, 'w');
    try {
      let rest = text;
      for (const id of streamed) {
        const quoted = JSON.stringify(marker(id));
        const at = rest.indexOf(quoted);
        const indent = rest.slice(rest.lastIndexOf('\n', at) + 1, at);
        await file.write(rest.slice(0, at));
        let lines: string[] = [];
        let first = true;
        for (const finding of findings(id)) {
          lines.push(`${first ? '' : `,\n${indent}`}${JSON.stringify(redact(finding))}`);
          first = false;
          if (lines.length === 1000) {
            await file.write(lines.join(''));
            lines = [];
          }
        }
        await file.write(lines.join(''));
        rest = rest.slice(at + quoted.length);
      }
      await file.write(rest);
    } finally {
      await file.close();
    }
    return path;
  } catch (error) {
    throw new ConfigError(
      `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/** Writes a report and returns its path, for the closing lines. */
async function writeReport(path: string, text: string): Promise<string> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
    return path;
  } catch (error) {
    throw new ConfigError(
      `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

function keysOf(env: Record<string, string | undefined>): Partial<Record<KeyName, string>> {
  return Object.fromEntries(CREDENTIAL_KEY_NAMES.filter((n) => env[n]).map((n) => [n, env[n]]));
}
