/**
 * The command line: configuration in, report out, exit status per the contract — 0 every required
 * check holds, 1 a required check failed, 2 unusable configuration or an unreachable target.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CHECKS } from './checks/index.ts';
import { compareReports, loadPreviousReport } from './compare.ts';
import type { KeyName } from './config.ts';
import { ConfigError, HELP, KEY_NAMES, parseCli } from './config.ts';
import { applyExpectedFailures, loadExpectedFailures } from './expectations.ts';
import { harText } from './har.ts';
import { redactorFor } from './redact.ts';
import { formatReport } from './reporters/index.ts';
import { contractsFor, runSuiteWithTraffic } from './runner.ts';
import { resolveTarget } from './target.ts';
import type { Report } from './types.ts';

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export { resolveTarget } from './target.ts';

export const EXIT = { pass: 0, fail: 1, unusable: 2 } as const;

export async function main(argv: string[], env: Record<string, string | undefined>, io: Io): Promise<number> {
  let redact = redactorFor(keysOf(env));
  let stop: (() => Promise<void>) | undefined;
  try {
    const options = parseCli(argv, env);
    redact = redactorFor(options.config.keys);
    if (options.help) {
      io.stdout(HELP);
      return EXIT.pass;
    }
    if (options.list) {
      io.stdout(
        CHECKS.map((c) => `${c.id}\t${c.drift ? 'drift' : c.level}\t${c.section}\t${c.title}`).join('\n') +
          '\n',
      );
      return EXIT.pass;
    }
    // The files are checked before anything is sent: a bad one is unusable configuration (exit 2).
    const expected = options.expectFailures
      ? loadExpectedFailures(options.expectFailures, CHECKS)
      : undefined;
    const previous = options.compare ? loadPreviousReport(options.compare) : undefined;
    contractsFor(options.config.specPath);
    const target = await resolveTarget(options.config);
    stop = target.close;
    const config = target.config;
    redact = redactorFor(config.keys, options.config.keys);
    const run = await runSuiteWithTraffic(config);
    let report = run.report;
    if (expected && options.expectFailures)
      report = applyExpectedFailures(report, options.expectFailures, expected);
    if (previous && options.compare)
      report = { ...report, comparison: compareReports(report, previous, options.compare) };
    if (options.har) await writeReport(options.har, harText(run.exchanges, report, redact));
    for (const reporter of options.reporters) {
      const text = formatReport(reporter.name, report, redact);
      if (!reporter.output) io.stdout(text);
      else await writeReport(reporter.output, text);
    }
    if (report.unreachable) io.stderr(redact(`conformance: ${report.unreachable}\n`));
    return exitStatusOf(report);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(redact(`conformance: ${error.message}\nRun with --help for the options.\n`));
    } else {
      io.stderr(redact(`conformance: internal error: ${(error as Error).message}\n`));
    }
    return EXIT.unusable;
  } finally {
    await stop?.();
  }
}

export function exitStatusOf(report: Report): number {
  if (report.unreachable) return EXIT.unusable;
  return report.summary.verdict === 'pass' ? EXIT.pass : EXIT.fail;
}

async function writeReport(path: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  } catch (error) {
    throw new ConfigError(
      `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

function keysOf(env: Record<string, string | undefined>): Partial<Record<KeyName, string>> {
  return Object.fromEntries(KEY_NAMES.filter((n) => env[n]).map((n) => [n, env[n]]));
}
