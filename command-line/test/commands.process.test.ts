/**
 * Every command reads its flags through command-line/flags.ts, so each one, run as a process, shows
 * the same `--help` layout (exit 0) and the same two-line message for an unknown flag or a bad value
 * (exit 2). Each entry runs as its npm script does (`--` before the flags); the npm scripts
 * themselves are checked to end with that `--`, and a few, one of each way of launching, are run
 * through npm with a missing `--env-file`: the command's own exit 2, never Node 20's exit 9.
 *
 * Only `--help` and mistakes are given, so no command starts a server or a run. Runs go
 * concurrently and each is bounded in time.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUN_BOUND_MS = 25_000;
const dir = mkdtempSync(join(tmpdir(), 'commands-'));
const MISSING_ENV_FILE = join(dir, 'absent.env');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `file args` from the repository root, bounded in time; never throws on a non-zero exit. */
function run(file: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env, NO_COLOR: '1' };
    execFile(file, args, { cwd: ROOT, env, timeout: RUN_BOUND_MS }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ status, stdout, stderr: stderr.replace(/^npm warn .*\n/gm, '') });
    });
  });
}

/** An entry as its npm script runs it: the launcher, then `--`, then the flags. */
const entry = (path: string, args: string[]) =>
  run(process.execPath, ['command-line/launch.js', path, '--', ...args]);

/** The name each command signs its messages with, and its entry. */
const COMMANDS = [
  { name: 'reference-server', entry: 'reference-server/main.ts' },
  { name: 'mock', entry: 'mock/main.ts' },
  { name: 'sandbox', entry: 'sandbox/main.ts' },
  { name: 'fixtures', entry: 'fixtures/main.ts' },
  { name: 'docs', entry: 'docs/main.ts' },
  { name: 'spec:diff', entry: 'spec/diff/main.ts' },
  { name: 'spec:check', entry: 'spec/check/main.ts' },
  { name: 'soak', entry: 'tools/soak/main.ts' },
  { name: 'bench:package', entry: 'tools/packaging/bench.ts' },
  { name: 'conformance:bench', entry: 'tools/bench/conformance-main.ts' },
  { name: 'build:packages', entry: 'tools/packaging/build.ts' },
  { name: 'conformance:coverage', entry: 'conformance/test/coverage-table.ts' },
  { name: 'spec:written-facts', entry: 'spec/test/written-spec-facts.ts' },
  { name: 'canvassing-conformance-summary', entry: 'conformance/cli/summary-command.ts' },
  { name: 'conformance:traffic-bench', entry: 'tools/bench/traffic-main.ts' },
  { name: 'bench:tests', entry: 'tools/bench/tests-main.ts' },
  { name: 'sandbox:base', entry: 'tools/packaging/sandbox-base.ts' },
] as const;

const usage = (name: string, problem: string) => `${name}: ${problem}\nRun with --help for the options.\n`;

describe.concurrent('every command, run as a process', () => {
  it.each(COMMANDS)('$name --help: the common layout on stdout, exit 0', async ({ entry: path }) => {
    const ran = await entry(path, ['--help']);
    expect(ran.stderr).toBe('');
    expect(ran.stdout.startsWith('Usage: ')).toBe(true);
    expect(ran.stdout).toContain('\n\nOptions:\n');
    expect(ran.stdout).toMatch(/\n {2}-h, --help +This text\n/);
    expect(ran.status).toBe(0);
  });

  it.each(COMMANDS)('$name --bogus-flag: the common message, exit 2', async ({ name, entry: path }) => {
    const ran = await entry(path, ['--bogus-flag']);
    expect(ran.stderr).toBe(usage(name, 'unknown flag --bogus-flag'));
    expect(ran.stdout).toBe('');
    expect(ran.status).toBe(2);
  });

  it.each([
    [
      'reference-server/main.ts',
      ['--port', '70000'],
      'reference-server',
      '--port must be an integer from 0 to 65535, not "70000"',
    ],
    [
      'reference-server/main.ts',
      ['--faults', '2'],
      'reference-server',
      '--faults must be a share from 0 to 1, such as 0.05, not "2"',
    ],
    ['mock/main.ts', ['--port', '-1'], 'mock', '--port must be an integer from 0 to 65535, not "-1"'],
    [
      'sandbox/main.ts',
      ['--seed', '4294967296'],
      'sandbox',
      '--seed must be an integer from 0 to 4294967295, not "4294967296"',
    ],
    [
      'sandbox/main.ts',
      ['--mock-port', '65536'],
      'sandbox',
      '--mock-port must be an integer from 0 to 65535, not "65536"',
    ],
    [
      'fixtures/main.ts',
      ['--walks', '-5'],
      'fixtures',
      '--walks must be an integer from 0 to 2000000, not "-5"',
    ],
    ['tools/soak/main.ts', ['--rounds', '1'], 'soak', '--rounds must be an integer from 2 to 100, not "1"'],
    [
      'spec/diff/main.ts',
      ['a.yaml', 'b.yaml', '--format', 'html'],
      'spec:diff',
      '--format must be one of text, markdown, json, not "html"',
    ],
    [
      'tools/packaging/build.ts',
      ['sandbx'],
      'build:packages',
      'PACKAGE must be one of conformance, sandbox, not "sandbx" (did you mean sandbox?)',
    ],
  ] as const)('%s %j: the common bad-value message, exit 2', async (path, args, name, problem) => {
    const ran = await entry(path, [...args]);
    expect(ran.stderr).toBe(usage(name, problem));
    expect(ran.status).toBe(2);
  });
});

describe('npm scripts', () => {
  const scripts = (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  /** Scripts npm runs by itself, to which no one adds flags. */
  const NO_USER_FLAGS = new Set(['pretest', 'postinstall']);

  it('end each of our commands with -- right after its entry (Node 20 stops reading --env-file there)', () => {
    const ours = Object.entries(scripts).filter(
      ([name, line]) => !NO_USER_FLAGS.has(name) && /\b(tsx|node)\b.*\s\S+\.(ts|js)\b/.test(line),
    );
    expect(ours.length).toBeGreaterThan(10);
    for (const [name, line] of ours)
      expect({ name, line }).toEqual({ name, line: expect.stringMatching(/\.(ts|js) --( |$)/) });
  });

  it.concurrent.each([
    // One of each way of launching: the launcher under `exec` and without, the reference server's
    // own launcher, and a script with a flag of its own after the `--`.
    ['mock', 'mock', 'unknown flag --env-file'],
    ['reference-server', 'reference-server', 'unknown flag --env-file'],
    ['fixtures', 'fixtures', 'unknown flag --env-file'],
    ['conformance:coverage', 'conformance:coverage', 'unknown flag --env-file'],
    // The one command that reads an env file: the file's absence, in its words.
    ['conformance', 'conformance', `env file not found: ${MISSING_ENV_FILE}`],
  ])(
    'npm run %s -- --env-file MISSING: exit 2 with its own message, not Node 9',
    async (script, name, problem) => {
      const ran = await run('npm', ['run', '--silent', script, '--', '--env-file', MISSING_ENV_FILE]);
      expect(ran.stderr).toBe(usage(name, problem));
      expect(ran.status).toBe(2);
    },
  );
});
