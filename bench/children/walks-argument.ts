/**
 * The one argument of a benchmark child, `tsx bench/children/SCRIPT.ts WALKS`, read with the shared
 * flags module: a bad or missing count is a usage mistake (exit 2), never a stack trace.
 */
import {
  type CommandSpec,
  integerFlag,
  optionsOrExit,
  readFlags,
  UsageError,
} from '../../command-line/flags.ts';
import { MAX_WALKS } from '../../fixtures/index.ts';

/** `WALKS` from `argv`, or the status the child ends with (0 after `--help`, 2 after a mistake). */
export function walksOrExit(script: string, summary: string, argv: string[]): { walks: number } | number {
  const command = {
    name: script,
    usage: `tsx bench/children/${script} WALKS`,
    summary: `${summary}\nRun by npm run bench, one fresh process per measurement.`,
    positionals: 'WALKS',
    flags: {},
  } as const satisfies CommandSpec;
  return optionsOrExit(command, argv, (args) => {
    const { values, positionals } = readFlags(command, args);
    if (values.help) return 'help';
    if (positionals.length !== 1)
      throw new UsageError(`expected one WALKS, got ${positionals.length} arguments`);
    return { walks: integerFlag('WALKS', positionals[0], { min: 0, max: MAX_WALKS }, 0) };
  });
}
