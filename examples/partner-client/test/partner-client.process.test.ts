/**
 * The partner client example, run as a partner runs it (its own process, key in the environment)
 * against the sandbox's reference server, its variants, and the Prism mock. What it prints is
 * compared with what the same server answers to plain requests.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../command-line/free-port.ts';
import { type RunningPrism, startPrism } from '../../../mock/prism.ts';
import { killGroup, type Launched, launch, redacted } from '../../../tools/test-support/child-launcher.ts';
import { type ServerProcess, startServerProcess } from '../../../tools/test-support/server-process.ts';
import { KEY_PREFIX } from '../../../spec/facts.ts';
import { remembered } from '../../../spec/remembered.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const LAUNCHER = 'reference-server/launch.js';
/** Two variants of the sandbox: other legal choices on every point the spec leaves open. */
const VARIANT_SEEDS = ['1', '2'];

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Walks the example lists and reads in these runs (the whole demo campaign would be 200 each). */
const LIST_LIMIT = 20;

async function runExample(baseUrl: string, apiKey: string, limit = LIST_LIMIT): Promise<Run> {
  const env = {
    ...process.env,
    API_BASE_URL: baseUrl,
    API_KEY: apiKey,
    API_LIST_LIMIT: String(limit),
    NO_COLOR: '1',
  };
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

/** The demo credentials of a reference server started with these flags, as it prints them (asked once per flags). */
const printedCredentials = remembered((flags) => printCredentials(JSON.parse(flags) as string[]), 8);
const credentialsOf = (flags: string[]) => printedCredentials(JSON.stringify(flags));

function printCredentials(flags: string[]): Record<string, string> {
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

/**
 * What the example should print, worked out from plain requests to the same server: the list, every
 * listed walk read, the first with stops, and the digest of every detail in list order.
 */
async function expectedLines(baseUrl: string, apiKey: string, limit = LIST_LIMIT): Promise<string[]> {
  const headers = { Authorization: `Bearer ${apiKey}` };
  const list = (await (await fetch(`${baseUrl}/api/v1/walks?limit=${limit}`, { headers })).json()) as {
    data: Array<{ id: string }>;
  };
  const details: Array<{ name: string; stops: unknown[] }> = [];
  for (const walk of list.data) {
    const detail = (await (await fetch(`${baseUrl}/api/v1/walks/${walk.id}`, { headers })).json()) as {
      data: { name: string; stops: unknown[] };
    };
    details.push(detail.data);
  }
  const stops = details.reduce((sum, detail) => sum + detail.stops.length, 0);
  const withStops = details.find((detail) => detail.stops.length > 0);
  return [
    `walks: ${list.data.length} (limit ${limit})`,
    `read ${details.length} walks: ${stops} stops`,
    withStops ? `stops of ${withStops.name}: ${withStops.stops.length}` : 'no walk has stops yet',
    `digest: ${createHash('sha256').update(JSON.stringify(details)).digest('hex')}`,
  ];
}

const children: ServerProcess[] = [];
let prism: RunningPrism | undefined;
afterAll(async () => {
  await Promise.all(children.map((child) => child.stop()));
  await prism?.stop();
});

/**
 * The base URL of a reference server process started with these flags: one per flags for the file,
 * since the example only reads (the default server serves five of the cases).
 */
const servers = remembered((flags) => {
  const server = startServerProcess(['--port', '0', '--quiet', ...(JSON.parse(flags) as string[])]);
  children.push(server);
  return server.listening();
}, 8);
const referenceServer = (flags: string[]) => servers(JSON.stringify(flags));

/**
 * Runs the example with the demo key of a reference server started with these flags, then with its
 * revoked key: whatever status and code the server chose for that (variants choose differently),
 * the example stops with exit 1 and names the code.
 */
async function expectListsAndStops(flags: string[]): Promise<void> {
  const baseUrl = await referenceServer(flags);
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
  it('lists walks and reads every listed walk on the default sandbox', () => expectListsAndStops([]));

  it.each(VARIANT_SEEDS)('lists walks and reads every listed walk on variant %s', (seed) =>
    expectListsAndStops(['--variant', seed]),
  );

  it('handles refusals by their code: a revoked key, a key without the scope, no key', async () => {
    const baseUrl = await referenceServer([]);
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

  it('names the address it tried and API_BASE_URL when nothing answers there', async () => {
    // A port just found free: nothing listens on it, so every attempt is refused.
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const run = await runExample(nowhere, `${KEY_PREFIX}${'k'.repeat(40)}`);
    expect(run.exitCode).toBe(1);
    const last = run.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toContain(`no answer from ${nowhere}`);
    expect(last).toContain('API_BASE_URL');
    expect(run.stderr).not.toContain('k'.repeat(12));
  });

  it('refuses an API_BASE_URL that is no http address, saying so', async () => {
    const run = await runExample('127.0.0.1:8080', `${KEY_PREFIX}${'k'.repeat(40)}`);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/^partner-client: API_BASE_URL: an http\(s\) address/);
  });
});

describe('examples/partner-client against the Prism mock', { timeout: 120_000 }, () => {
  it('lists the example walks and reads each of them', async () => {
    prism = await startPrism({ port: await freePort() });
    const apiKey = `${KEY_PREFIX}partner_example_key`;
    const run = await runExample(prism.baseUrl, apiKey);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    for (const line of await expectedLines(prism.baseUrl, apiKey)) expect(run.stdout).toContain(line);
  });
});

/** Fault seeds the sandbox draws its failures from; each run meets a different sequence of them. */
const FAULT_SEEDS = ['1', '2', '3'];

/** The example's run of 30 walks on the default server without faults: what every faulty run must print. */
let clean: Promise<Run> | undefined;
function cleanRun(): Promise<Run> {
  clean ??= referenceServer([]).then((baseUrl) =>
    runExample(baseUrl, credentialsOf([]).CONFORMANCE_API_KEY ?? '', 30),
  );
  return clean;
}

describe('examples/partner-client against the sandbox with faults and latency', { timeout: 180_000 }, () => {
  let sandbox: Launched | undefined;
  afterEach(() => {
    if (sandbox) killGroup(sandbox.pgid);
    sandbox = undefined;
  });

  it.each(FAULT_SEEDS)(
    'lists the campaign and reads every listed walk, as without faults (fault seed %s)',
    async (seed) => {
      const apiKey = credentialsOf([]).CONFORMANCE_API_KEY ?? '';
      const clean = await cleanRun();
      expect(clean.exitCode).toBe(0);

      const port = await freePort();
      let mockPort = await freePort();
      while (mockPort === port) mockPort = await freePort();
      const turbulence = ['--faults', '0.3', '--latency', '0-40', '--fault-seed', seed];
      sandbox = launch('sandbox/main.ts', [
        '--port',
        String(port),
        '--mock-port',
        String(mockPort),
        ...turbulence,
      ]);
      await sandbox.waitForOutput('Ctrl-C stops both.');
      const faulty = await runExample(`http://127.0.0.1:${port}`, apiKey, 30);
      expect(faulty.exitCode, redacted(faulty.stderr)).toBe(0);
      expect(faulty.stdout).toBe(clean.stdout);
      // It met failures and said so, one line per retry, never with the key.
      expect(faulty.stderr).toMatch(/^partner-client: retry 1 of GET /m);
      expect(faulty.stderr).not.toContain(apiKey);
    },
  );
});
