/**
 * `npm run spec:diff -- BASE_SPEC HEAD_SPEC` and `npm run spec:diff -- --base-ref GIT_REF [HEAD_SPEC]`.
 * Exit status: 0 when HEAD breaks no client of BASE, 1 when it does, 2 when the input is unusable.
 */
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { LIVE_SPEC_PATH } from '../contract.ts';
import { diffSpecs } from './diff.ts';
import { SpecDiffError } from './errors.ts';
import { loadSpecAtGitRef, loadSpecInput, type SpecInput } from './input.ts';
import { FORMATS, formatReport, type ReportFormat } from './report.ts';

const USAGE = `Usage:
  npm run spec:diff -- BASE_SPEC HEAD_SPEC [--format text|markdown|json]
  npm run spec:diff -- --base-ref GIT_REF [HEAD_SPEC] [--format text|markdown|json]

Compares two versions of an OpenAPI 3 spec from a client's point of view and classifies each
change as breaking, non-breaking or annotation-only. --base-ref compares HEAD_SPEC (default
spec/openapi.yaml) with its version at GIT_REF.

Exit status: 0 no breaking change, 1 breaking changes, 2 unusable input.`;

interface Options {
  baseRef?: string;
  format: ReportFormat;
  specs: string[];
}

export async function main(argv: string[]): Promise<number> {
  let format: ReportFormat = 'text';
  try {
    const parsed = parseOptions(argv);
    if (parsed === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    format = parsed.format;
    const [base, head, dispose] = loadInputs(parsed);
    try {
      const diff = await diffSpecs(base, head);
      process.stdout.write(`${formatReport(diff, format)}\n`);
      return diff.verdict === 'breaking' ? 1 : 0;
    } finally {
      dispose();
    }
  } catch (caught) {
    // Anything unforeseen is still unusable input to a CI gate, never a "breaking" exit 1.
    const error =
      caught instanceof SpecDiffError
        ? caught
        : new SpecDiffError(
            'engine_failed',
            `unexpected failure: ${(caught as Error)?.stack ?? String(caught)}`,
          );
    if (format === 'json') {
      const envelope = { ok: false, error: { code: error.code, message: error.message } };
      process.stdout.write(`${JSON.stringify(envelope, null, 2)}\n`);
    }
    process.stderr.write(`spec:diff: ${error.message}\n${error.code === 'usage' ? `\n${USAGE}\n` : ''}`);
    return 2;
  }
}

function parseOptions(argv: string[]): Options | 'help' {
  let values: { 'base-ref'?: string | undefined; format?: string | undefined; help?: boolean | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'base-ref': { type: 'string' },
        format: { type: 'string', default: 'text' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new SpecDiffError('usage', (error as Error).message);
  }
  if (values.help) return 'help';
  const format = values.format ?? 'text';
  if (!isFormat(format)) {
    throw new SpecDiffError(
      'usage',
      `--format must be one of ${FORMATS.join(', ')}, not ${JSON.stringify(format)}.`,
    );
  }
  const baseRef = values['base-ref'];
  if (baseRef !== undefined) {
    if (baseRef.trim() === '' || baseRef.startsWith('-'))
      throw new SpecDiffError('usage', '--base-ref needs a git ref.');
    if (positionals.length > 1)
      throw new SpecDiffError('usage', 'with --base-ref, give at most one spec (HEAD_SPEC).');
    return { baseRef, format, specs: positionals };
  }
  if (positionals.length !== 2) {
    throw new SpecDiffError(
      'usage',
      `expected BASE_SPEC and HEAD_SPEC, got ${positionals.length} spec path(s).`,
    );
  }
  return { format, specs: positionals };
}

function isFormat(format: string): format is ReportFormat {
  return (FORMATS as readonly string[]).includes(format);
}

function loadInputs(options: Options): [SpecInput, SpecInput, () => void] {
  if (options.baseRef === undefined) {
    const [basePath, headPath] = options.specs as [string, string];
    return [loadSpecInput(basePath), loadSpecInput(headPath), () => {}];
  }
  const headPath = options.specs[0] ?? relative(process.cwd(), LIVE_SPEC_PATH);
  const head = loadSpecInput(headPath);
  const base = loadSpecAtGitRef(options.baseRef, headPath);
  return [base, head, base.dispose];
}

process.exitCode = await main(process.argv.slice(2));
