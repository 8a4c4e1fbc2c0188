/**
 * `npm run spec:diff -- BASE_SPEC HEAD_SPEC` and `npm run spec:diff -- --base-ref GIT_REF [HEAD_SPEC]`.
 * Exit status: 0 when the new spec (HEAD) breaks no client of the old one (BASE), or every break
 * is accepted in the acknowledgement file; 1 when a break is not accepted or an acknowledgement is
 * stale or expired; 2 when the input is unusable.
 */
import { relative } from 'node:path';
import type { CommandSpec } from '../../command-line/flags.ts';
import { choiceFlag, helpText, readFlags, usageMessage } from '../../command-line/flags.ts';
import type { Output } from '../../command-line/output.ts';
import { LIVE_SPEC_PATH } from '../facts.ts';
import { acknowledgementsBeside } from './acknowledgements.ts';
import { runEngine, type Engine } from './engine.ts';
import { SpecDiffError } from './errors.ts';
import { gateSpecs } from './gate.ts';
import { loadSpecAtGitRef, loadSpecInput, type SpecInput } from './input.ts';
import { FORMATS, formatReport, type ReportFormat } from './report.ts';

const COMMAND = {
  name: 'spec:diff',
  usage: `npm run spec:diff -- BASE_SPEC HEAD_SPEC [--accepted FILE] [--format text|markdown|json]
       npm run spec:diff -- --base-ref GIT_REF [HEAD_SPEC] [--accepted FILE] [--format text|markdown|json]`,
  summary: `Compares the old spec (BASE_SPEC) with the new one (HEAD_SPEC, default spec/openapi.yaml with
--base-ref, which reads the old spec from git at GIT_REF) from a client's point of view. Each
change is classed breaking, non-breaking or annotation-only and says what a client now sees.`,
  positionals: 'BASE_SPEC HEAD_SPEC',
  flags: {
    'base-ref': { type: 'string', value: 'GIT_REF', help: 'Read the old spec from git at GIT_REF' },
    accepted: {
      type: 'string',
      value: 'FILE',
      help: 'Breaking changes the team accepts (default: accepted-changes.yaml beside\nHEAD_SPEC). Each entry: id (RULE@PLACE, as the report prints it), reason, and\nexpires: YYYY-MM-DD or spec-version: X. An entry that matches no breaking change\nor has ended fails the gate.',
    },
    format: { type: 'string', value: 'FORMAT', help: 'text (default), markdown or json' },
  },
  sections: [
    {
      title: 'Exit status',
      text: `  0 no breaking change, or every one accepted; 1 a break not accepted, or a stale or
  expired acknowledgement; 2 unusable input (missing file, invalid spec, malformed acknowledgements).`,
    },
  ],
} as const satisfies CommandSpec;

interface Options {
  baseRef?: string;
  accepted?: string;
  format: ReportFormat;
  specs: string[];
}

/** Runs the command and returns its exit status (0, 1 or 2, as above). */
export async function main(argv: string[], io: Output, engine: Engine = runEngine): Promise<number> {
  let format: ReportFormat = 'text';
  try {
    const parsed = parseOptions(argv);
    if (parsed === 'help') {
      io.stdout(helpText(COMMAND));
      return 0;
    }
    format = parsed.format;
    const [base, head, dispose] = loadInputs(parsed);
    try {
      const acknowledgements = parsed.accepted ?? acknowledgementsBeside(headPathOf(parsed));
      const named = parsed.accepted !== undefined;
      const result = await gateSpecs(base, head, {
        acknowledgements,
        acknowledgementsNamed: named,
        engine,
      });
      io.stdout(`${formatReport(result, format)}\n`);
      return result.gate === 'pass' ? 0 : 1;
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
      io.stdout(`${JSON.stringify(envelope, null, 2)}\n`);
    }
    io.stderr(error.code === 'usage' ? usageMessage(COMMAND.name, error) : `spec:diff: ${error.message}\n`);
    return 2;
  }
}

function parseOptions(argv: string[]): Options | 'help' {
  let values: ReturnType<typeof readFlags<typeof COMMAND.flags>>['values'];
  let positionals: string[];
  let format: ReportFormat;
  try {
    ({ values, positionals } = readFlags(COMMAND, argv));
    format = choiceFlag('--format', values.format ?? 'text', FORMATS);
  } catch (error) {
    throw new SpecDiffError('usage', (error as Error).message);
  }
  if (values.help) return 'help';
  const accepted = values.accepted;
  if (accepted !== undefined && (accepted.trim() === '' || accepted.startsWith('-'))) {
    throw new SpecDiffError('usage', '--accepted needs a file.');
  }
  const baseRef = values['base-ref'];
  if (baseRef !== undefined) {
    if (baseRef.trim() === '' || baseRef.startsWith('-'))
      throw new SpecDiffError('usage', '--base-ref needs a git ref.');
    if (positionals.length > 1)
      throw new SpecDiffError('usage', 'with --base-ref, give at most one spec (HEAD_SPEC).');
    return { baseRef, format, specs: positionals, ...(accepted ? { accepted } : {}) };
  }
  if (positionals.length !== 2) {
    throw new SpecDiffError(
      'usage',
      `expected BASE_SPEC and HEAD_SPEC, got ${positionals.length} spec path(s).`,
    );
  }
  return { format, specs: positionals, ...(accepted ? { accepted } : {}) };
}

function headPathOf(options: Options): string {
  if (options.baseRef === undefined) return options.specs[1] as string;
  return options.specs[0] ?? relative(process.cwd(), LIVE_SPEC_PATH);
}

function loadInputs(options: Options): [SpecInput, SpecInput, () => void] {
  if (options.baseRef === undefined) {
    const [basePath, headPath] = options.specs as [string, string];
    return [loadSpecInput(basePath), loadSpecInput(headPath), () => {}];
  }
  const headPath = headPathOf(options);
  const head = loadSpecInput(headPath);
  const base = loadSpecAtGitRef(options.baseRef, headPath);
  return [base, head, base.dispose];
}
