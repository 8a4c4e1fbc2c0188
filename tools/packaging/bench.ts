/**
 * `npm run bench:package [-- --quick]`: what a QA team pays for the conformance package. Packs it,
 * then measures `npm install --omit=dev` of the tarball into an empty folder outside the
 * repository (wall time; installed size of node_modules), and the time from starting the installed
 * `canvassing-conformance` to the first request the target receives. Prints the figures beside the
 * thresholds (30 MB, 20 s, 1 s); medians and the worst of the rounds. Beside them, for scale, the
 * repository's own `npm ci --omit=dev` in a fresh clone of HEAD: its time, size and packages.
 */
import { statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { type CommandSpec, optionsOrExit, readFlags } from '../../command-line/flags.ts';
import { median } from '../measure/statistics.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import {
  binOf,
  bytesUnder,
  cleanup,
  installedPackages,
  installTarballs,
  outsideEnv,
  packWorkspace,
  run,
  scratchDir,
} from './packed.ts';
import { REPO_ROOT } from './packages.ts';

const COMMAND = {
  name: 'bench:package',
  usage: 'npm run bench:package -- [--quick]',
  summary: 'Packs the conformance package, installs it and times its start to the first request.',
  flags: { quick: { type: 'boolean', help: '1 install and 2 start-ups instead of 3 and 7' } },
} as const satisfies CommandSpec;

/**
 * From spawning a command to the first request arriving at the reference server: the installed
 * bin, and for scale a bare `node -e fetch(...)` (what this machine's load alone costs).
 */
async function startToFirstRequest(rounds: number, project: string, bare = false): Promise<number[]> {
  const server = await startReferenceServer({ log: false });
  const [command, args] = bare
    ? [process.execPath, ['-e', `fetch(${JSON.stringify(server.baseUrl)}).catch(() => {})`]]
    : [binOf(project, 'canvassing-conformance'), ['--base-url', server.baseUrl]];
  const times: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      const child = execa(command, args, {
        env: outsideEnv(server.credentials),
        extendEnv: false,
        stdio: 'ignore',
        reject: false,
      });
      await new Promise<void>((resolve) => server.server.once('request', () => resolve()));
      times.push(performance.now() - started);
      child.kill('SIGKILL');
      await child;
    }
  } finally {
    await server.close();
  }
  return times;
}

/**
 * What the repository's own runtime install costs, for scale: `npm ci --omit=dev` in a fresh clone
 * of HEAD (its postinstall and any native build included), timed once.
 */
async function repositoryRuntimeInstall(): Promise<{ ms: number; bytes: number; packages: number }> {
  const clone = join(scratchDir('bench-clone'), 'repo');
  const cloned = await run('git', ['clone', '--quiet', REPO_ROOT, clone]);
  if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
  const started = performance.now();
  const installed = await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], {
    cwd: clone,
    timeoutMs: 900_000,
  });
  const ms = performance.now() - started;
  if (installed.status !== 0) throw new Error(`npm ci --omit=dev failed:\n${installed.stderr}`);
  const modules = join(clone, 'node_modules');
  return { ms, bytes: bytesUnder(modules), packages: installedPackages(clone).length };
}

async function main(quick: boolean): Promise<void> {
  const ROUNDS = quick ? { install: 1, start: 2 } : { install: 3, start: 7 };
  const tarball = await packWorkspace('conformance', scratchDir('bench-pack'));
  const installs: number[] = [];
  let project = '';
  for (let round = 0; round < ROUNDS.install; round++) {
    const started = performance.now();
    project = await installTarballs([tarball]);
    installs.push(performance.now() - started);
  }
  const size = bytesUnder(join(project, 'node_modules'));
  const packages = installedPackages(project).length;
  const repository = await repositoryRuntimeInstall();
  const starts = await startToFirstRequest(ROUNDS.start, project);
  const bare = await startToFirstRequest(ROUNDS.start, project, true);
  const rows: [string, string, string][] = [
    ['tarball', `${(statSync(tarball).size / 1e6).toFixed(2)} MB`, ''],
    ['installed size (node_modules)', `${(size / 1e6).toFixed(2)} MB`, '≤ 30 MB'],
    ['packages installed (itself included)', String(packages), ''],
    [
      `npm install --omit=dev (${installs.length} round(s))`,
      `${(median(installs) / 1000).toFixed(2)} s median, ${(Math.max(...installs) / 1000).toFixed(2)} s worst`,
      '≤ 20 s',
    ],
    [
      `start to first request (${starts.length} round(s))`,
      `${median(starts).toFixed(0)} ms median, ${Math.max(...starts).toFixed(0)} ms worst`,
      '≤ 1 s',
    ],
    [`  for scale: bare node to first request`, `${median(bare).toFixed(0)} ms median`, ''],
    ['beside it, the repository: npm ci --omit=dev', `${(repository.ms / 1000).toFixed(2)} s`, ''],
    ['  installed size (node_modules)', `${(repository.bytes / 1e6).toFixed(2)} MB`, ''],
    ['  packages installed', String(repository.packages), ''],
  ];
  const load = loadavg()[0]?.toFixed(1) ?? '?';
  const machine = `Node ${process.version}, ${availableParallelism()} cores, load ${load}`;
  console.log(`canvassing-conformance package (${machine})${quick ? ', quick' : ''}`);
  for (const [what, figure, bound] of rows) console.log(`  ${what.padEnd(40)} ${figure.padEnd(34)} ${bound}`);
}

const options = optionsOrExit(COMMAND, process.argv.slice(2), (argv) => {
  const { values } = readFlags(COMMAND, argv);
  return values.help ? 'help' : { quick: values.quick ?? false };
});
if (typeof options === 'number') process.exitCode = options;
else {
  try {
    await main(options.quick);
  } finally {
    cleanup();
  }
}
