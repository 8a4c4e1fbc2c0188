/**
 * The diff engine: `redocly diff` from @redocly/cli (pinned in package.json), run with the
 * diff-recommended rules and read back as JSON. Redocly walks both documents with $refs
 * resolved, reports each changed source value once, and knows whether a schema sits in a request
 * or a response; `classify.ts` and `rules.ts` turn its report into the project's verdict.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SpecDiffError } from './errors.ts';
import type { EngineChange, EngineReport } from './types.ts';

const REDOCLY_CLI = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
const CONFIG = fileURLToPath(new URL('./redocly-diff.yaml', import.meta.url));
/** The JSON report layout this wrapper reads; another one means Redocly changed it under us. */
const REPORT_VERSION = '1';
const ENGINE_TIMEOUT_MS = 120_000;

const run = promisify(execFile);

/** Compares the spec files at two paths: `runEngine`, or in tests the same run reused for the same files. */
export type Engine = (basePath: string, headPath: string) => Promise<EngineReport>;

export async function runEngine(basePath: string, headPath: string): Promise<EngineReport> {
  const args = [
    REDOCLY_CLI,
    'diff',
    basePath,
    headPath,
    '--config',
    CONFIG,
    '--lint-config',
    'off',
    '--format',
    'json',
    // The exit status is ours to decide: Redocly fails only when it could not diff.
    '--fail-on',
    'none',
  ];
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, args, {
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      },
      maxBuffer: 256 * 1024 * 1024,
      timeout: ENGINE_TIMEOUT_MS,
    }));
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '');
    throw new SpecDiffError(
      'engine_failed',
      `redocly diff could not compare the specs:\n${cleanEngineOutput(stderr)}`,
    );
  }
  return parseEngineReport(stdout);
}

function parseEngineReport(stdout: string): EngineReport {
  let report: unknown;
  try {
    report = JSON.parse(stdout);
  } catch {
    throw new SpecDiffError('engine_failed', 'redocly diff printed no JSON report.');
  }
  const { reportVersion, changes } = (report ?? {}) as Partial<EngineReport>;
  if (reportVersion !== REPORT_VERSION || !Array.isArray(changes)) {
    throw new SpecDiffError(
      'engine_failed',
      `redocly diff printed a report of version ${String(reportVersion)}; spec:diff reads version ${REPORT_VERSION}.`,
    );
  }
  return { reportVersion, changes: changes as EngineChange[] };
}

/** Drops Redocly's banners, colours and blank runs, keeping what says why it failed. */
function cleanEngineOutput(stderr: string): string {
  const lines = stderr
    // eslint-disable-next-line no-control-regex -- strips ANSI colour codes
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((line) => !/[║╔╚═]/.test(line) && !/^npm warn/.test(line))
    .map((line) => line.trimEnd());
  const text = lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const kept = text.split('\n').slice(0, 40);
  return kept.length ? kept.join('\n') : '(no message)';
}
