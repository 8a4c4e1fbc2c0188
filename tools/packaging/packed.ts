/**
 * Packs a workspace with `npm pack` (its `prepack` builds it) and installs tarballs with
 * `npm install --omit=dev` into an empty folder outside the repository, as a QA team would; runs
 * commands with an environment that carries nothing of the repository (no `node_modules/.bin` on
 * the path, no npm variables of the test run).
 */
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from './packages.ts';

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /**
   * Killed (SIGKILL) after this long: a guard against a hang only (default 10 minutes), since an
   * install of the conformance package builds SQLite's native binding, minutes on a busy machine.
   */
  timeoutMs?: number;
}

/** PATH and HOME only: PATH without any `node_modules/.bin`, so only what the test installed runs. */
export function outsideEnv(extra: Record<string, string> = {}): Record<string, string> {
  const path = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes('node_modules'))
    .join(delimiter);
  // No install-time analytics from a dependency's postinstall (Prism pulls in @scarf/scarf).
  return {
    ...networkEnv(),
    PATH: path,
    HOME: process.env.HOME ?? tmpdir(),
    NO_COLOR: '1',
    SCARF_ANALYTICS: 'false',
    ...extra,
  };
}

/**
 * How this machine reaches the registry (its proxy and the CA that signs it): a QA pipeline's npm has
 * the same, and without it an install that must ask the registry fails on the certificate.
 */
function networkEnv(): Record<string, string> {
  const names = /^(?:NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|(?:HTTPS?|NO|ALL)_PROXY)$/i;
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => names.test(entry[0]) && !!entry[1],
    ),
  );
}

/** Runs a command to its end (asynchronously: a server in this process keeps answering). */
export async function run(command: string, args: string[], options: RunOptions = {}): Promise<Ran> {
  const ran = await execa(command, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env ?? outsideEnv(),
    extendEnv: false,
    stdin: 'ignore',
    stripFinalNewline: false,
    timeout: options.timeoutMs ?? 600_000,
    killSignal: 'SIGKILL',
    reject: false,
  });
  if (ran.failed && ran.exitCode === undefined && !ran.isTerminated) throw ran;
  return { status: ran.exitCode ?? null, stdout: ran.stdout, stderr: ran.stderr };
}

/** A fresh folder outside the repository; `cleanup()` removes every one made. */
const made: string[] = [];
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `canvassing-${prefix}-`));
  made.push(dir);
  return dir;
}
export function cleanup(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** This checkout's own mark: two clones on one machine pack and install their own files, never waiting on each other. */
const CHECKOUT = createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 8);

/**
 * Runs `task` while holding a lock folder named `name` (and this checkout) in the temporary folder, so test files that
 * run at the same time take turns (bounded wait). The holder touches the lock while its task runs,
 * so a lock untouched for 3 minutes was left by a killed run, however long the task takes.
 */
export async function withLock<T>(name: string, task: () => Promise<T>, waitMs = 300_000): Promise<T> {
  const lock = join(tmpdir(), `${name}-${CHECKOUT}.lock`);
  for (let waited = 0; ; waited += 500) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (waited >= waitMs) throw new Error(`${lock} held for over ${waitMs / 60_000} minutes`);
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 180_000) {
        rmSync(lock, { recursive: true, force: true });
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  const touching = setInterval(() => {
    const now = new Date();
    utimesSync(lock, now, now);
  }, 30_000);
  try {
    return await task();
  } finally {
    clearInterval(touching);
    rmdirSync(lock);
  }
}

/**
 * `npm pack` of one workspace into `destination`. Packing rebuilds the workspace's `dist/`, so
 * test files that pack at the same time take turns.
 */
export async function packWorkspace(
  workspace: 'conformance' | 'sandbox',
  destination: string,
): Promise<string> {
  await withLock(`canvassing-pack-${workspace}`, () => packInto(workspace, destination));
  return tarballIn(workspace, destination);
}

/**
 * The tarball of `workspace` packed once for every test file of one test run, in that run's own
 * folder `runFolder` (made afresh for each run, so a tarball never outlives the sources of its run):
 * the first file to ask packs it, holding the pack lock; the others find it there.
 */
export function packedOnce(workspace: 'conformance' | 'sandbox', runFolder: string): Promise<string> {
  const destination = join(runFolder, workspace);
  return withLock(`canvassing-pack-${workspace}`, async () => {
    if (existsSync(destination)) return tarballIn(workspace, destination);
    // Packed beside and moved in whole, so a failed pack leaves no tarball for the next file.
    const staging = mkdtempSync(join(runFolder, `${workspace}-`));
    await packInto(workspace, staging);
    renameSync(staging, destination);
    return tarballIn(workspace, destination);
  });
}

async function packInto(workspace: 'conformance' | 'sandbox', destination: string): Promise<void> {
  const packed = await run('npm', ['pack', '--workspace', workspace, '--pack-destination', destination], {
    env: outsideEnv(),
  });
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stdout}${packed.stderr}`);
}

function tarballIn(workspace: 'conformance' | 'sandbox', folder: string): string {
  const tarball = readdirSync(folder).find((name) => name.startsWith(`canvassing-${workspace}-`));
  if (!tarball) throw new Error(`npm pack wrote no canvassing-${workspace} tarball to ${folder}`);
  return join(folder, tarball);
}

/** An empty project in a new folder with the tarballs installed as a QA team would install them. */
export async function installTarballs(tarballs: string[]): Promise<string> {
  const project = scratchDir('install');
  writeFileSync(join(project, 'package.json'), '{ "name": "qa-pipeline", "private": true }\n');
  // The conformance package builds SQLite's native binding from source: minutes on a busy machine.
  const installed = await run(
    'npm',
    ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs],
    { cwd: project, env: outsideEnv(), timeoutMs: 900_000 },
  );
  if (installed.status !== 0) throw new Error(`npm install failed:\n${installed.stdout}${installed.stderr}`);
  return project;
}

/**
 * `installTarballs` once per test run for each set of this run's tarballs (`packedOnce`): the first
 * file to ask installs them into `runFolder`, holding the lock; every file gets a copy of its own,
 * so none sees what another wrote, and the native build is paid once.
 */
export async function installedOnce(tarballs: string[], runFolder: string): Promise<string> {
  const key = createHash('sha256')
    .update(
      tarballs
        .map((tarball) => basename(tarball))
        .sort()
        .join('\n'),
    )
    .digest('hex')
    .slice(0, 12);
  const destination = join(runFolder, `installed-${key}`);
  await withLock(
    `canvassing-install-${key}`,
    async () => {
      if (existsSync(destination)) return;
      renameSync(await installTarballs(tarballs), destination);
    },
    1_200_000,
  );
  const project = scratchDir('install');
  cpSync(destination, project, { recursive: true, verbatimSymlinks: true });
  return project;
}

/** The bytes of every file under `dir`. */
export function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** The packages an install put in a project (`name` of each), as npm's record of node_modules lists them. */
export function installedPackages(project: string): string[] {
  const lock = JSON.parse(readFileSync(join(project, 'node_modules', '.package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  return Object.keys(lock.packages)
    .filter((path) => path !== '')
    .map((path) => path.replace(/^.*node_modules\//, ''))
    .sort();
}

/** The path of an installed bin. */
export const binOf = (project: string, name: string) => join(project, 'node_modules', '.bin', name);
