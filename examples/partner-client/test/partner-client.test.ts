/**
 * The partner client example, run as a partner runs it (its own process, key in the environment)
 * against the sandbox's reference server, its variants, and the Prism mock. What it prints is
 * compared with what the same server answers to plain requests.
 */
import { type ChildProcess, execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, type RunningPrism, startPrism } from '../../../mock/prism.ts';
import { listeningUrl, startServerProcess } from '../../../test-support/server-process.ts';
import { KEY_PREFIX } from '../../../spec/facts.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const LAUNCHER = 'reference-server/launch.js';
/** Two variants of the sandbox: other legal choices on every point the spec leaves open. */
const VARIANT_SEEDS = ['1', '2'];

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
}

async function runExample(baseUrl: string, apiKey: string): Promise<Run> {
  const env = { ...process.env, API_BASE_URL: baseUrl, API_KEY: apiKey, NO_COLOR: '1' };
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'examples/partner-client/main.ts'],
      { cwd: ROOT, env, timeout: 60_000 },
    );
    return { exitCode: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { exitCode: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** The demo credentials of a reference server started with these flags, as it prints them. */
function credentialsOf(flags: string[]): Record<string, string> {
  const text = execFileSync(process.execPath, [LAUNCHER, '--print-credentials', ...flags], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return Object.fromEntries(
    text
      .split('\n')
      .map((line) => /^([A-Z_]+)=(\S+)/.exec(line))
      .filter((match) => match !== null)
      .map((match) => [match[1], match[2]]),
  );
}

/** What the example should print, worked out from plain requests to the same server. */
async function expectedLines(baseUrl: string, apiKey: string): Promise<string[]> {
  const headers = { Authorization: `Bearer ${apiKey}` };
  const list = (await (await fetch(`${baseUrl}/api/v1/walks?limit=20`, { headers })).json()) as {
    data: Array<{ id: string; count: number }>;
  };
  const lines = [`walks: ${list.data.length} (limit 20)`];
  const withStops = list.data.find((walk) => walk.count > 0);
  if (!withStops) return [...lines, 'no walk has stops yet'];
  const detail = (await (await fetch(`${baseUrl}/api/v1/walks/${withStops.id}`, { headers })).json()) as {
    data: { name: string; stops: unknown[] };
  };
  expect(detail.data.stops.length).toBeGreaterThan(0);
  return [...lines, `stops of ${detail.data.name}: ${detail.data.stops.length}`];
}

const children: ChildProcess[] = [];
let prism: RunningPrism | undefined;
afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await prism?.stop();
});

async function startReferenceServer(flags: string[]): Promise<string> {
  const server = startServerProcess(['--port', '0', '--quiet', ...flags]);
  children.push(server.child);
  return listeningUrl(server.output);
}

/**
 * Runs the example with the demo key of a reference server started with these flags, then with its
 * revoked key: whatever status and code the server chose for that (variants choose differently),
 * the example stops with exit 1 and names the code.
 */
async function expectListsAndStops(flags: string[]): Promise<void> {
  const baseUrl = await startReferenceServer(flags);
  const keys = credentialsOf(flags);
  const apiKey = keys.CONFORMANCE_API_KEY ?? '';
  const run = await runExample(baseUrl, apiKey);
  expect(run.stderr).toBe('');
  expect(run.exitCode).toBe(0);
  for (const line of await expectedLines(baseUrl, apiKey)) expect(run.stdout).toContain(line);
  expect(run.stdout).not.toContain(apiKey);

  const revoked = await runExample(baseUrl, keys.CONFORMANCE_REVOKED_KEY ?? '');
  expect(revoked.exitCode).toBe(1);
  expect(revoked.stderr).toMatch(/^partner-client: [a-z_]+: /);
}

// Each case starts processes (tsx, a server, Prism); the bound only stops a hung one.
describe('examples/partner-client against the reference server', { timeout: 120_000 }, () => {
  it('lists walks and reads one walk’s stops on the default sandbox', () => expectListsAndStops([]));

  it.each(VARIANT_SEEDS)('lists walks and reads one walk’s stops on variant %s', (seed) =>
    expectListsAndStops(['--variant', seed]),
  );

  it('handles refusals by their code: a revoked key, a key without the scope, no key', async () => {
    const baseUrl = await startReferenceServer([]);
    const keys = credentialsOf([]);
    const revoked = await runExample(baseUrl, keys.CONFORMANCE_REVOKED_KEY ?? '');
    expect(revoked.exitCode).toBe(1);
    expect(revoked.stderr).toMatch(/^partner-client: unauthorized: /);
    const noScope = await runExample(baseUrl, keys.CONFORMANCE_NO_SCOPE_KEY ?? '');
    expect(noScope.exitCode).toBe(1);
    expect(noScope.stderr).toMatch(/^partner-client: forbidden: /);
    const noKey = await runExample(baseUrl, '');
    expect(noKey.exitCode).toBe(2);
  });
});

describe('examples/partner-client against the Prism mock', { timeout: 120_000 }, () => {
  it('lists the example walks and reads the example walk’s stops', async () => {
    prism = await startPrism({ port: await freePort() });
    const apiKey = `${KEY_PREFIX}partner_example_key`;
    const run = await runExample(prism.baseUrl, apiKey);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    for (const line of await expectedLines(prism.baseUrl, apiKey)) expect(run.stdout).toContain(line);
  });
});
