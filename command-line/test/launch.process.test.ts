/**
 * `command-line/launch.js`, what the npm scripts run: a command's entry from its bundle, in the
 * launcher's own process, seeing the argument vector and module paths that tsx would give it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CACHE_DIR, launchBundleOf } from '../bundle.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'launch-'));
const cleanups = [() => rmSync(dir, { recursive: true, force: true })];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

/** Removes a bundle and its manifest when the file's tests end. */
function forgetBundle(bundle: string): void {
  cleanups.push(
    () => rmSync(bundle, { force: true }),
    () => rmSync(bundle.replace(/mjs$/, 'inputs.json'), { force: true }),
  );
}

/** An entry outside the repository, written for one test; its bundle goes when the file's tests end. */
function writtenEntry(name: string, lines: string[]): string {
  const entry = join(dir, name);
  writeFileSync(entry, lines.join('\n'));
  forgetBundle(launchBundleOf(entry));
  return entry;
}

function launch(args: string[], cwd = ROOT): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'command-line/launch.js'), ...args],
      { cwd, timeout: 25_000 },
      (error, stdout, stderr) => {
        resolve({ status: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

describe('command-line/launch.js', () => {
  it.each([
    // written-spec-facts.ts runs its main only when process.argv[1] is its own path.
    [
      'runs an entry that starts only when it is the process’s script: argv[1] is the entry, its flags follow',
      ['spec/test/written-spec-facts.ts', '--', '--help'],
      '.',
      /^Usage: npm run spec:written-facts/,
    ],
    [
      'names the entry from the working directory, as node and tsx do (a workspace’s prepack)',
      ['../tools/packaging/build.ts', '--help'],
      'conformance',
      /^Usage: npm run build:packages/,
    ],
  ])('%s', async (_name, args, cwd, usage) => {
    const ran = await launch(args, join(ROOT, cwd));
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toMatch(usage);
    expect(ran.status).toBe(0);
  });

  it('keeps each module’s own paths: the conformance CLI reads the spec beside its module', async () => {
    const ran = await launch(['conformance/main.ts', '--', '--list']);
    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain('AUTH-001');
  });

  it('passes the command’s exit status and messages through', async () => {
    const ran = await launch(['conformance/main.ts', '--', '--bogus-flag']);
    expect(ran.status).toBe(2);
    expect(ran.stderr).toBe('conformance: unknown flag --bogus-flag\nRun with --help for the options.\n');
  });

  it('records what each bundle was built from, this launcher included, and nothing from node_modules', async () => {
    expect((await launch(['--build-only', 'fixtures/main.ts'])).status).toBe(0);
    const manifest = launchBundleOf('fixtures/main.ts').replace(/\.mjs$/, '.inputs.json');
    const { inputs } = JSON.parse(readFileSync(manifest, 'utf8')) as { inputs: string[] };
    expect(inputs).toEqual(
      expect.arrayContaining(['fixtures/main.ts', 'command-line/launch.js', 'command-line/bundle.js']),
    );
    expect(inputs.some((file) => file.includes('node_modules'))).toBe(false);
    expect(launchBundleOf('fixtures/main.ts')).toBe(
      join(ROOT, 'node_modules/.cache/canvassing-bundles/fixtures--main.mjs'),
    );
  });

  it('gives a module its own import.meta.url, leaves the words in a string alone, and keeps its line numbers', async () => {
    const entry = writtenEntry('own-url.ts', [
      'const own = import.meta.url;',
      "const text = 'new URL(x, import.meta.url) as text';",
      'console.log(JSON.stringify({ own, text }));',
      "throw new Error('thrown on line four');",
    ]);
    const ran = await launch([entry]);
    expect(JSON.parse(ran.stdout)).toEqual({
      own: pathToFileURL(entry).href,
      text: 'new URL(x, import.meta.url) as text',
    });
    expect(ran.stderr).toContain(`${entry}:4`);
    expect(ran.status).toBe(1);
  });

  it('builds bundles from inside a bundle: a launched command that bundles another entry keeps that one’s paths too', async () => {
    // As the conformance CLI (bundled) bundles its worker: the bundler is itself part of the
    // launched bundle.
    // Beside the launcher's bundles, where the packages a bundle leaves out resolve.
    const inner = join(CACHE_DIR, `test-${basename(dir)}.mjs`);
    forgetBundle(inner);
    const entry = writtenEntry('bundles-another.ts', [
      `import { execFileSync } from 'node:child_process';`,
      `import { freshBundle } from ${JSON.stringify(join(ROOT, 'command-line/bundle.js'))};`,
      `const bundle = await freshBundle({ entry: 'conformance/main.ts', outFile: ${JSON.stringify(inner)} });`,
      `process.stdout.write(execFileSync(process.execPath, [bundle, '--list'], { encoding: 'utf8' }));`,
    ]);
    const ran = await launch([entry]);
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toContain('AUTH-001');
    expect(ran.status).toBe(0);
  });

  it.each([
    [[]],
    [['--build-only']],
    [['conformance/main.js']],
    [['--build-only', 'fixtures/main.ts', 'README.md']],
  ])('refuses %j with its usage and exit 2', async (args) => {
    const ran = await launch(args);
    expect(ran.status).toBe(2);
    expect(ran.stderr).toMatch(/^usage: node command-line\/launch\.js ENTRY\.ts/);
  });
});
