/**
 * `npm run spec:check -- [--base-ref REF] [--spec PATH] [--accepted FILE] [--format F] [--report-dir DIR]`:
 * the pull-request gate of a spec change, in three parts — lint, the breaking-change diff against
 * REF with the acknowledged breaks, and strict conformance of the reference server against the new
 * spec — and one verdict. Exit status: 0 every part passes, 1 a part fails, 2 a part cannot judge
 * (unusable input, a missing ref) or the command line is wrong.
 */
import { relative } from 'node:path';
import type { CommandSpec } from '../../command-line/flags.ts';
import { choiceFlag, optionsOrExit, readFlags, UsageError } from '../../command-line/flags.ts';
import { loadSpec } from '../contract.ts';
import { LIVE_SPEC_PATH } from '../facts.ts';
import { conformancePart } from './conformance-part.ts';
import { diffPart } from './diff-part.ts';
import { lintPart } from './lint-part.ts';
import { type CheckFormat, FORMATS, formatCheck, verdictOf } from './report.ts';
import type { CheckResult } from './types.ts';

const COMMAND = {
  name: 'spec:check',
  usage:
    'npm run spec:check -- [--base-ref REF] [--spec PATH] [--accepted FILE] [--format text|markdown|json] [--report-dir DIR]',
  summary: `Judges a spec change before it merges, in three parts, and prints one verdict:
  lint          Spectral and Redocly lint the new spec (and planned.openapi.yaml beside it)
  diff          spec:diff against the spec at REF, with the breaks accepted in --accepted
                (default: accepted-changes.yaml beside the spec)
  conformance   the reference server, judged strictly against the new spec
                (npm run conformance -- --spec PATH --strict)`,
  flags: {
    'base-ref': {
      type: 'string',
      value: 'REF',
      help: 'The branch or commit to compare with (default HEAD: the spec as last committed)',
    },
    spec: { type: 'string', value: 'PATH', help: 'The new spec (default spec/openapi.yaml)' },
    accepted: {
      type: 'string',
      value: 'FILE',
      help: 'The acknowledged breaks (default accepted-changes.yaml beside the spec)',
    },
    format: { type: 'string', value: 'F', help: `Output: ${FORMATS.join(', ')} (default text)` },
    'report-dir': { type: 'string', value: 'DIR', help: 'Keep the conformance JSON and JUnit reports there' },
  },
  sections: [
    {
      title: 'Exit status',
      text: '  0 every part passes; 1 a part fails; 2 a part cannot judge, or usage.',
    },
  ],
} as const satisfies CommandSpec;

interface CheckOptions {
  baseRef: string;
  spec: string;
  accepted?: string;
  format: CheckFormat;
  reportDir?: string;
}

function parseOptions(argv: string[]): CheckOptions | 'help' {
  const { values } = readFlags(COMMAND, argv);
  if (values.help) return 'help';
  // A change not yet committed is judged against the last commit; CI names the branch it merges into.
  const baseRef = values['base-ref'] ?? 'HEAD';
  if (!baseRef || baseRef.startsWith('-'))
    throw new UsageError('--base-ref REF names the branch or commit to compare with');
  const format: CheckFormat = choiceFlag('--format', values.format ?? 'text', FORMATS);
  return {
    baseRef,
    spec: values.spec ?? relative(process.cwd(), LIVE_SPEC_PATH),
    format,
    ...(values.accepted ? { accepted: values.accepted } : {}),
    ...(values['report-dir'] ? { reportDir: values['report-dir'] } : {}),
  };
}

export async function check(options: Omit<CheckOptions, 'format'>): Promise<CheckResult> {
  // One after the other: the machine a CI job gets is small, and each part is busy on its own.
  const parts = [
    await lintPart(options.spec),
    await diffPart(options.spec, options.baseRef, options.accepted),
    await conformancePart(options.spec, options.reportDir),
  ];
  return {
    spec: options.spec,
    specVersion: versionOf(options.spec),
    baseRef: options.baseRef,
    verdict: verdictOf(parts),
    parts,
  };
}

function versionOf(path: string): string {
  try {
    return String(loadSpec(path).info?.version ?? '');
  } catch {
    return '';
  }
}

async function main(argv: string[]): Promise<number> {
  const options = optionsOrExit(COMMAND, argv, parseOptions);
  if (typeof options === 'number') return options;
  const result = await check(options);
  process.stdout.write(`${formatCheck(result, options.format)}\n`);
  return { pass: 0, fail: 1, error: 2 }[result.verdict];
}

process.exitCode = await main(process.argv.slice(2));
