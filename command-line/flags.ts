/**
 * One way for every command to read its flags, on `node:util` `parseArgs`: one `--help` (and, for a
 * packaged bin, `--version`) layout, one message for an unknown flag (with the nearest real one) or
 * a bad value, one `--env-file` reader. Every mistake is a `UsageError`; commands print it with
 * `usageMessage` and exit with `EXIT_USAGE`.
 *
 * Every npm script that runs a command ends with ` --` (`node command-line/launch.js fixtures/main.ts --`): Node 20 reads
 * `--env-file` anywhere on its command line, even after the script, and exits 9 with its own words
 * on a missing file; it stops looking at `--`. So the flags a user adds arrive after that `--`, and
 * `readFlags` drops one leading `--`.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type Output, PROCESS_OUTPUT } from './output.ts';

/** The exit status of a command line that cannot be used as given. */
export const EXIT_USAGE = 2;

export class UsageError extends Error {
  readonly code: string = 'usage';
}

interface FlagSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** The value's placeholder in `--help`, e.g. `URL` or `MS`. */
  value?: string;
  /** What the flag does; `\n` starts another help line. */
  help: string;
}
export type FlagTable = Record<string, FlagSpec>;

export interface CommandSpec<T extends FlagTable = FlagTable> {
  /** How messages name the command, e.g. `conformance`. */
  name: string;
  /** The usage line(s), without `Usage: `. */
  usage: string;
  /** What the command does, one paragraph. */
  summary: string;
  flags: T;
  /** Names of the positional arguments, when the command takes any. */
  positionals?: string;
  /** Sections after the options (environment, exit status…), each text as written. */
  sections?: readonly { title: string; text: string }[];
  /** The line `--version` prints; without it the command has no `--version` (see `packagedVersion`). */
  version?: string | undefined;
}

type ValueOf<F extends FlagSpec> = F['type'] extends 'boolean'
  ? boolean
  : F['multiple'] extends true
    ? string[]
    : string;
export type FlagValues<T extends FlagTable> = { [K in keyof T]?: ValueOf<T[K]> } & {
  help?: boolean;
  version?: boolean;
};

const HELP_FLAG: FlagSpec = { type: 'boolean', short: 'h', help: 'This text' };
const VERSION_FLAG: FlagSpec = { type: 'boolean', help: 'Print the version and exit' };

/** The command's flags and the common ones: `--version` when it has a version, `--help` always. */
function flagsOf(command: CommandSpec): FlagTable {
  return {
    ...command.flags,
    ...(command.version === undefined ? {} : { version: VERSION_FLAG }),
    help: HELP_FLAG,
  };
}

/** Reads `argv` against the command's flags; `--help`/`-h` is every command's. */
export function readFlags<T extends FlagTable>(
  command: CommandSpec<T>,
  argv: string[],
): { values: FlagValues<T>; positionals: string[] } {
  const flags = flagsOf(command);
  const args = negativeValuesJoined(flags, argv[0] === '--' ? argv.slice(1) : argv);
  rejectUnknownFlags(flags, args);
  try {
    const { values, positionals } = parseArgs({
      args,
      options: flags,
      strict: true,
      allowPositionals: command.positionals !== undefined,
    });
    return { values: values as FlagValues<T>, positionals };
  } catch (error) {
    throw new UsageError(parseFailure(error as Error & { code?: string }));
  }
}

/**
 * `--walks -5` as `--walks=-5`: parseArgs takes a value that starts with `-` for a flag and calls
 * the value missing, when it is out of range like any other. Joined, it reaches the flag's own check.
 */
function negativeValuesJoined(flags: FlagTable, argv: string[]): string[] {
  const shorts = new Map(Object.entries(flags).map(([name, flag]) => [flag.short, name]));
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    if (arg === '--') return [...args, ...argv.slice(i)];
    const name = arg.startsWith('--') ? arg.slice(2) : shorts.get(arg.slice(1));
    const takesValue = /^--?[^-=]/.test(arg) && name !== undefined && flags[name]?.type === 'string';
    if (takesValue && next !== undefined && /^-\d/.test(next)) {
      args.push(`--${name}=${next}`);
      i++;
    } else args.push(arg);
  }
  return args;
}

/** Unknown flags first, so the message names the nearest real one rather than parseArgs' words. */
function rejectUnknownFlags(flags: FlagTable, argv: string[]): void {
  const { tokens } = parseArgs({
    args: argv,
    options: flags,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    // A declared short flag arrives under its long name.
    if (token.kind !== 'option' || Object.hasOwn(flags, token.name)) continue;
    const near = nearest(token.rawName.replace(/^-+/, ''), Object.keys(flags));
    throw new UsageError(`unknown flag ${token.rawName}${near ? ` (did you mean --${near}?)` : ''}`);
  }
}

function parseFailure(error: Error & { code?: string }): string {
  const flag = /'(-[^' <]+)/.exec(error.message)?.[1];
  switch (error.code) {
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /does not take an argument/.test(error.message)
        ? `${flag} takes no value`
        : `${flag} needs a value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${JSON.stringify(/'([^']*)'/.exec(error.message)?.[1] ?? '')}`;
    default:
      return error.message;
  }
}

/** The candidate closest to `word` when it is close enough to be a slip, else undefined. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const prefixed = candidates.filter((c) => c.startsWith(lower));
  if (lower.length >= 3 && prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(lower.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = value;
    }
  }
  return at(a.length, b.length);
}

/**
 * The one wording of a bad value: what the flag takes, then the value as given, quoted.
 * Every value check here and in the commands throws this.
 */
export function badValue(flag: string, expected: string, raw: string): UsageError {
  return new UsageError(`${flag} must be ${expected}, not ${JSON.stringify(raw)}`);
}

/** An integer flag within bounds, or `fallback` when it was not given. */
export function integerFlag(
  flag: string,
  raw: string | undefined,
  bounds: { min: number; max: number },
  fallback: number,
): number {
  if (raw === undefined) return fallback;
  const { min, max } = bounds;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw badValue(flag, `an integer from ${min} to ${max}`, raw);
  }
  return Number(raw);
}

/**
 * A decimal number flag (`1.25`) within bounds, or `fallback` when it was not given. `above: true`
 * leaves out `min` itself (a duration above 0).
 */
export function numberFlag(
  flag: string,
  raw: string | undefined,
  bounds: { min: number; max: number; above?: boolean },
  fallback: number,
): number {
  if (raw === undefined) return fallback;
  const { min, max, above = false } = bounds;
  const value = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value <= max && (above ? value > min : value >= min))) {
    throw badValue(flag, `a number ${above ? 'above' : 'from'} ${min} ${above ? 'up ' : ''}to ${max}`, raw);
  }
  return value;
}

/**
 * The ports every server command takes: 0 (any free port, the one chosen is printed) to 65535.
 * The reference server, the mock and the sandbox share these bounds and say so in `--help`.
 */
const PORT_BOUNDS = { min: 0, max: 65_535 } as const;
/** How a port flag's help ends. */
export const PORT_HELP = '0 picks a free port';

export function portFlag(flag: string, raw: string | undefined, fallback: number): number {
  return integerFlag(flag, raw, PORT_BOUNDS, fallback);
}

/** The seeds the data set generator takes (`generateDataset`): an unsigned 32-bit integer. */
export const SEED_BOUNDS = { min: 0, max: 2 ** 32 - 1 } as const;

/** A per-key rate limit, `600/min` or `600`: 1 to 1,000,000 requests a minute. */
export function rateLimitFlag(flag: string, raw: string): number {
  const match = /^([0-9]+)(?:\/min)?$/.exec(raw);
  const value = match ? Number(match[1]) : 0;
  if (!(value >= 1 && value <= 1_000_000))
    throw badValue(flag, 'a rate from 1/min to 1000000/min, like 600/min', raw);
  return value;
}

/** One of a fixed set of words. */
export function choiceFlag<C extends string>(flag: string, raw: string, choices: readonly C[]): C {
  if ((choices as readonly string[]).includes(raw)) return raw as C;
  const near = nearest(raw, choices);
  const error = badValue(flag, `one of ${choices.join(', ')}`, raw);
  if (near) error.message += ` (did you mean ${near}?)`;
  throw error;
}

/** A comma list of words from a fixed set (`--skip prism,large`), each once; empty items ignored. */
export function choiceListFlag<C extends string>(flag: string, raw: string, choices: readonly C[]): C[] {
  const words = raw
    .split(',')
    .map((word) => word.trim())
    .filter(Boolean);
  return [...new Set(words.map((word) => choiceFlag(flag, word, choices)))];
}

/**
 * The `--version` line of a packaged bin, `NAME VERSION (API TITLE API VERSION)`, from the
 * `package.json` that tools/packaging/build.ts writes at the root of a package's `dist/` (where this
 * module then sits in `dist/command-line/`). Undefined in the repository, whose `package.json`
 * names no API: there the command has no version of its own to tell.
 */
export function packagedVersion(bin: string): string | undefined {
  try {
    const { version, api } = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as {
      version?: string;
      api?: { title: string; version: string };
    };
    return version && api ? `${bin} ${version} (${api.title} ${api.version})` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The variables of a dotenv file (`NAME=value`, `# comments`, optional `export ` and quotes), as
 * `npm run reference-server -- --print-credentials` writes them. The command reads it itself, so the
 * same message comes whatever runs it (`node --env-file` would exit 9 with the runtime's words).
 */
export function readEnvFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`env file not found: ${path}`);
    throw new UsageError(`env file cannot be read: ${path} (${code ?? (error as Error).message})`);
  }
  const env: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match?.[1] || line.trimStart().startsWith('#')) continue;
    env[match[1]] = (match[2] ?? '').replace(/^(['"])(.*)\1$/, '$2');
  }
  return env;
}

/** The environment with an env file's variables beneath it: the environment wins. */
export function withEnvFile<E extends Record<string, string | undefined>>(
  path: string | undefined,
  env: E,
): Record<string, string | undefined> {
  return path === undefined ? { ...env } : { ...readEnvFile(path), ...env };
}

/**
 * A command's options, or the status it ends with before doing anything: 2 after a usage mistake
 * (the message on stderr), 0 after `--help` (the help on stdout) or `--version` (the version line).
 * `parse` returns `'help'` for help; `--version` is answered here, so no command handles it. All
 * of it is written to `output`: the process's streams, or the text a test collects.
 */
export function optionsOrExit<O>(
  command: CommandSpec,
  argv: string[],
  parse: (argv: string[]) => O | 'help',
  output: Output = PROCESS_OUTPUT,
): O | number {
  let options: O | 'help' | 'version';
  try {
    options = wantsVersion(command, argv) ? 'version' : parse(argv);
  } catch (error) {
    output.stderr(usageMessage(command.name, error as Error));
    return EXIT_USAGE;
  }
  if (options === 'version') output.stdout(`${command.version}\n`);
  else if (options === 'help') output.stdout(helpText(command));
  else return options;
  return 0;
}

/** `--version` without `--help` (help wins, as it lists `--version`), for a command that has one. */
function wantsVersion(command: CommandSpec, argv: string[]): boolean {
  if (command.version === undefined) return false;
  const { values } = readFlags(command, argv);
  return values.version === true && values.help !== true;
}

/** What a command prints for a usage mistake: its name, the problem, where to look. */
export function usageMessage(command: string, error: Error): string {
  return `${command}: ${error.message}\nRun with --help for the options.\n`;
}

/** Where help texts start: column 26, or further when a command has a longer flag. */
const COLUMN = 26;

/** The `--help` text, the same layout for every command. */
export function helpText(command: CommandSpec): string {
  const rows = Object.entries(flagsOf(command)).map(([name, flag]) => {
    const left = `${flag.short ? `-${flag.short}, ` : ''}--${name}${flag.value ? ` ${flag.value}` : ''}`;
    return { left, lines: flag.help.split('\n') };
  });
  const column = Math.max(COLUMN, ...rows.map((row) => row.left.length + 4));
  const text = rows.map(({ left, lines }) =>
    lines.map((line, i) => `${i === 0 ? `  ${left}`.padEnd(column) : ' '.repeat(column)}${line}`).join('\n'),
  );
  const sections = (command.sections ?? []).map((s) => `\n${s.title}:\n${s.text.replace(/\n$/, '')}\n`);
  return `Usage: ${command.usage}\n\n${command.summary.replace(/\n$/, '')}\n\nOptions:\n${text.join('\n')}\n${sections.join('')}`;
}
