/**
 * `npm ci --omit=dev` installs what the commands of ../shared/CONTRACT.md need (tests, lint and the
 * docs build aside): every npm package the reference server, the mock, the conformance CLI, the
 * sandbox and the postinstall step import, or resolve at run time, is a dependency, not a dev one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { PACKAGES, REPO_ROOT } from '../packages.ts';

/** The entry points `npm run reference-server|mock|conformance`, `npm start` and postinstall run, and their launchers. */
const COMMAND_ENTRIES = [
  'reference-server/main.ts',
  'reference-server/launch.js',
  'command-line/launch.js',
  'mock/main.ts',
  'conformance/main.ts',
  'sandbox/main.ts',
  'tools/packaging/postinstall.ts',
];

/** What those commands load without an import esbuild can see: tsx runs them, esbuild bundles. */
const RUNNER_PACKAGES = ['tsx', 'esbuild', ...PACKAGES.flatMap((p) => p.resolvedAtRunTime)];

async function importedPackages(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [join(REPO_ROOT, entry)],
    absWorkingDir: REPO_ROOT,
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    metafile: true,
    logLevel: 'silent',
  });
  const names = new Set<string>();
  for (const input of Object.values(result.metafile.inputs)) {
    for (const { path, external } of input.imports) {
      if (!external || path.startsWith('node:') || path.startsWith('.')) continue;
      const parts = path.split('/');
      names.add(path.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? path));
    }
  }
  return [...names];
}

describe('dependencies of the commands', () => {
  it('are all runtime dependencies of the repository', async () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const imported = new Set(RUNNER_PACKAGES);
    for (const entry of COMMAND_ENTRIES) for (const name of await importedPackages(entry)) imported.add(name);
    const missing = [...imported].filter((name) => !(name in manifest.dependencies));
    expect(missing).toEqual([]);
    expect(imported.has('@stoplight/prism-cli')).toBe(true);
  });
});
