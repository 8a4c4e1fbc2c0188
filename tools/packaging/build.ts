/**
 * `npm run build:packages [-- conformance|sandbox]` (and each workspace's `prepack`): builds a
 * package's `dist/`: one bundle per entry point, the files it ships, a `package.json` carrying the
 * tool and API versions for the code that reads them, and one small launcher per bin.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { choiceFlag, type CommandSpec, optionsOrExit, readFlags } from '../../command-line/flags.ts';
import { loadSpec } from '../../spec/contract.ts';
import { bundle } from './bundle.ts';
import {
  API_REFERENCE_PAGE,
  LIVE_SPEC,
  type PackageDefinition,
  PACKAGES,
  packageDefinition,
  REPO_ROOT,
} from './packages.ts';

interface Manifest {
  name: string;
  version: string;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export interface ApiIdentity {
  title: string;
  version: string;
}

export function manifestOf(dir: string): Manifest {
  return JSON.parse(readFileSync(join(REPO_ROOT, dir, 'package.json'), 'utf8')) as Manifest;
}

/** `info.title` and `info.version` of spec/openapi.yaml: the API a package checks or serves. */
export function apiIdentity(): ApiIdentity {
  const { info } = loadSpec(join(REPO_ROOT, LIVE_SPEC));
  return { title: info.title, version: info.version };
}

export const binPath = (name: string) => `dist/bin/${name}.mjs`;

export async function buildPackage(definition: PackageDefinition): Promise<string[]> {
  const manifest = manifestOf(definition.dir);
  const api = apiIdentity();
  checkManifest(definition, manifest, api);
  const distDir = join(REPO_ROOT, definition.dir, 'dist');
  rmSync(distDir, { recursive: true, force: true });
  if (definition.files.includes(API_REFERENCE_PAGE)) {
    const { buildApiReference } = await import('../../docs/build.ts');
    await buildApiReference();
  }
  const imported = new Set<string>(definition.resolvedAtRunTime);
  const inlined = new Set<string>();
  const shipped = new Set<string>(definition.files);
  const entries = [...Object.values(definition.bins), ...definition.modules];
  for (const entry of entries) {
    const {
      packages,
      inlined: copied,
      readAtRunTime,
    } = await bundle({
      entry,
      distDir,
      inlineDependencies: definition.inlineDependencies,
      external: definition.external,
      replacements: definition.replacements,
    });
    for (const name of packages) imported.add(name);
    for (const folder of copied) inlined.add(folder);
    for (const file of readAtRunTime) shipped.add(file);
  }
  if (inlined.size > 0)
    writeThirdPartyLicences(join(distDir, 'THIRD-PARTY-LICENSES.txt'), [...inlined].sort());
  checkDependencies(definition, manifest, [...imported].sort());
  // What the code reads beside itself ships beside it, so a packed run judges as the repository's does.
  for (const file of [...shipped].sort()) {
    mkdirSync(dirname(join(distDir, file)), { recursive: true });
    copyFileSync(join(REPO_ROOT, file), join(distDir, file));
  }
  // Read by the code through `../package.json` from its folder (the tool's version in reports).
  writeJson(join(distDir, 'package.json'), { type: 'module', version: manifest.version, api });
  for (const [name, entry] of Object.entries(definition.bins)) {
    writeLauncher(join(REPO_ROOT, definition.dir, binPath(name)), name, join(distDir, entry));
  }
  return entries;
}

/** The committed package.json and the definition agree, and the version is the API's. */
function checkManifest(definition: PackageDefinition, manifest: Manifest, api: ApiIdentity): void {
  const problems: string[] = [];
  if (manifest.version !== api.version) {
    problems.push(`version ${manifest.version} is not the spec's info.version ${api.version}`);
  }
  const expected = Object.fromEntries(Object.keys(definition.bins).map((name) => [name, binPath(name)]));
  if (JSON.stringify(manifest.bin ?? {}) !== JSON.stringify(expected)) {
    problems.push(`"bin" must be ${JSON.stringify(expected)}`);
  }
  if (problems.length > 0) throw new Error(`${definition.dir}/package.json: ${problems.join('; ')}`);
}

/** Every package the bundles import is a dependency, at the repository's own version, and no other. */
function checkDependencies(definition: PackageDefinition, manifest: Manifest, imported: string[]): void {
  const root = manifestOf('.');
  const pinned = { ...root.devDependencies, ...root.dependencies };
  const declared = manifest.dependencies ?? {};
  const problems = [
    ...imported
      .filter((name) => declared[name] !== pinned[name])
      .map((name) => `needs "${name}": "${pinned[name] ?? '?'}" (has ${declared[name] ?? 'none'})`),
    ...Object.keys(declared)
      .filter((name) => !imported.includes(name))
      .map((name) => `declares "${name}", which nothing imports`),
  ];
  if (problems.length > 0) {
    throw new Error(`${definition.dir}/package.json dependencies: ${problems.join('; ')}`);
  }
}

/** The name, version, licence and licence text of every npm package copied into a bundle. */
function writeThirdPartyLicences(path: string, folders: string[]): void {
  const sections = folders.map((folder) => {
    const dir = join(REPO_ROOT, folder);
    const { name, version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      license?: string;
    };
    const file = readdirSync(dir).find((entry) => /^licen[cs]e(\.|$)/i.test(entry));
    const text = file
      ? readFileSync(join(dir, file), 'utf8').trim()
      : `(no licence file; "license": ${license})`;
    return `${name}@${version} (${license ?? 'see below'})\n\n${text}\n`;
  });
  writeFileSync(path, `${sections.join(`\n${'-'.repeat(72)}\n\n`)}`);
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A bin: it runs its entry's bundle, whose command answers `--help` and `--version` itself.
 * The shebang ends node's own options with `--`: Node 20 reads `--env-file` anywhere on its command
 * line and exits 9 on a missing file before the CLI could say "env file not found" itself.
 */
function writeLauncher(path: string, name: string, entry: string): void {
  const bundled = `./${relative(dirname(path), entry.replace(/\.ts$/, '.mjs')).split('\\').join('/')}`;
  const run = `await import(${JSON.stringify(bundled)});`;
  const source = `#!/usr/bin/env -S node --
// ${name}: built by tools/packaging/build.ts.
${run}
`;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, source, { mode: 0o755 });
}

const COMMAND = {
  name: 'build:packages',
  usage: `npm run build:packages -- [${PACKAGES.map((p) => p.dir).join('|')}]...`,
  summary:
    "Builds each named package's dist/ (every package when none is named): one bundle per entry\npoint, the files it ships, its package.json and one launcher per bin.",
  positionals: 'PACKAGE',
  flags: {},
} as const satisfies CommandSpec;

async function main(argv: string[]): Promise<number> {
  const dirs = optionsOrExit(COMMAND, argv, (args) => {
    const { values, positionals } = readFlags(COMMAND, args);
    const known = PACKAGES.map((p) => p.dir);
    return values.help ? 'help' : positionals.map((dir) => choiceFlag('PACKAGE', dir, known));
  });
  if (typeof dirs === 'number') return dirs;
  for (const definition of dirs.length > 0 ? dirs.map(packageDefinition) : PACKAGES) {
    const entries = await buildPackage(definition);
    console.log(`${definition.dir}/dist: ${entries.join(', ')}`);
  }
  return 0;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  process.exitCode = await main(process.argv.slice(2));
}
