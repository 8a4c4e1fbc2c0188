import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { demoCredentials } from '../../fixtures/index.ts';
import { freePort } from '../../command-line/free-port.ts';
import { isListening } from '../../command-line/listen-url.ts';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { apiReferencePathOf } from '../../docs/build.ts';
import {
  type Launched,
  killGroup,
  launch,
  launchNpm,
  waitForGroupGone,
} from '../../tools/test-support/child-launcher.ts';
import { listsOnlySpec } from '../../tools/test-support/lists-server.ts';
import { DEFAULT_WEB_BASE_URL } from '../../reference-server/web-base-url.ts';

const HOST = '127.0.0.1';
let launched: Launched | undefined;

afterEach(() => {
  if (launched) killGroup(launched.pgid);
  launched = undefined;
});

async function startSandbox(
  extra: string[] = [],
  readyWithinMs?: number,
): Promise<{ sandbox: Launched; port: number; mockPort: number }> {
  const port = await freePort();
  let mockPort = await freePort();
  while (mockPort === port) mockPort = await freePort();
  const sandbox = launchNpm([
    'start',
    '--',
    '--port',
    String(port),
    '--mock-port',
    String(mockPort),
    ...extra,
  ]);
  launched = sandbox;
  await sandbox.waitForOutput('Ctrl-C stops both.', readyWithinMs);
  return { sandbox, port, mockPort };
}

async function statusOf(url: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await request(url, { headers });
  await response.body.dump();
  return response.statusCode;
}

describe('npm start (the sandbox)', () => {
  it('serves both, prints what a partner needs, and Ctrl-C (SIGINT to the group) stops everything', async () => {
    const { sandbox, port, mockPort } = await startSandbox();
    const server = `http://${HOST}:${port}`;
    const mock = `http://${HOST}:${mockPort}`;
    const output = sandbox.output();

    // The published demo credentials, as the contract's dotenv lines (compared, never printed here).
    const credentials = { ...demoCredentials(), CONFORMANCE_WEB_BASE_URL: DEFAULT_WEB_BASE_URL };
    for (const [name, value] of Object.entries(credentials)) {
      expect(output.includes(`${name}=${value}\n`), `${name} line`).toBe(true);
    }
    expect(output).toContain(`${server}/docs`);
    expect(output).toContain(mock);
    expect(
      output.includes(
        `curl -H 'Authorization: Bearer ${credentials.CONFORMANCE_API_KEY}' '${server}/api/v1/walks`,
      ),
    ).toBe(true);

    expect(await statusOf(`${server}/api/v1/walks`, { 'x-api-key': credentials.CONFORMANCE_API_KEY })).toBe(
      200,
    );
    expect(await statusOf(`${server}/docs`)).toBe(200);
    expect(await statusOf(`${server}/`)).toBe(302); // to /docs
    expect(output).toContain(
      'Serving: the project’s own choices on open points; no added latency, no faults',
    );
    expect(await statusOf(`${mock}/api/v1/walks`, { 'x-api-key': 'svc_sk_live_anything' })).toBe(200);
    // Waiting for the mock to start asked it nothing, so its log holds no path the spec lacks.
    expect(sandbox.output()).not.toContain('NO_PATH_MATCHED');

    process.kill(-sandbox.pgid, 'SIGINT');
    expect(await sandbox.exited).toBe(0);
    expect(await waitForGroupGone(sandbox.pgid)).toBe(true);
    expect(await isListening(HOST, port)).toBe(false);
    expect(await isListening(HOST, mockPort)).toBe(false);
  });

  it('stops both, leaving no process, on SIGTERM to npm alone', async () => {
    const { sandbox, port, mockPort } = await startSandbox();
    sandbox.child.kill('SIGTERM');
    expect(await sandbox.exited).toBe(0);
    expect(await waitForGroupGone(sandbox.pgid)).toBe(true);
    expect(await isListening(HOST, port)).toBe(false);
    expect(await isListening(HOST, mockPort)).toBe(false);
    expect(sandbox.output()).toContain('sandbox: stopped (SIGTERM).');
  });

  it('serves a variant with latency and faults when asked, and its banner says so', async () => {
    const flags = ['--variant', '2', '--latency', '5-15', '--faults', '0.1', '--fault-kinds', '429,500'];
    const { sandbox } = await startSandbox(flags);
    expect(sandbox.output()).toContain(
      'Serving: variant 2 (see --variant 2 --print-variant); latency 5-15 ms, faults on 10% of requests (429, 500), seed 1',
    );
    process.kill(-sandbox.pgid, 'SIGINT');
    expect(await sandbox.exited).toBe(0);
  });

  it('throttles each key with --rate-limit N/min, like the reference server: 429 rate_limited and Retry-After', async () => {
    const { sandbox, port } = await startSandbox(['--rate-limit', '2/min']);
    expect(sandbox.output()).toContain('Rate limit: 2 requests a minute per key');
    const key = { 'x-api-key': demoCredentials().CONFORMANCE_API_KEY };
    const url = `http://${HOST}:${port}/api/v1/walks?limit=1`;
    expect([await statusOf(url, key), await statusOf(url, key)]).toEqual([200, 200]);
    const refused = await request(url, { headers: key });
    const body = (await refused.body.json()) as { ok: boolean; error: { code: string } };
    expect([refused.statusCode, body.ok, body.error.code]).toEqual([429, false, 'rate_limited']);
    // Seconds left in the key's one-minute window, as the docs page says.
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Another key has its own window.
    const other = { 'x-api-key': demoCredentials().CONFORMANCE_EMPTY_CAMPAIGN_KEY };
    expect(await statusOf(url, other)).toBe(200);
    process.kill(-sandbox.pgid, 'SIGINT');
    expect(await sandbox.exited).toBe(0);
  });

  it('runs the canvassing day with --clock and --variant together: the clock moves, the banner says how', async () => {
    const { sandbox, port } = await startSandbox(['--clock', '--variant', '2']);
    expect(sandbox.output()).toContain('Serving: variant 2');
    expect(sandbox.output()).toContain('a canvassing day on a clock');
    expect(sandbox.output()).toContain(`/sandbox/clock`);
    const clock = `http://${HOST}:${port}/sandbox/clock`;
    const moved = await request(clock, { method: 'POST', body: '{"advance":"2h"}' });
    const body = (await moved.body.json()) as { data: { elapsed_seconds: number } };
    expect([moved.statusCode, body.data.elapsed_seconds]).toEqual([200, 7_200]);
    process.kill(-sandbox.pgid, 'SIGINT');
    expect(await sandbox.exited).toBe(0);
  });

  it.each([
    [
      'with no live operation',
      'openapi: 3.1.0\ninfo: { title: t, version: "1" }\npaths: {}\n',
      /has no live operation to serve/,
    ],
    ['that is not YAML', '{{{\n', /cannot be read/],
  ])('refuses a --spec %s with exit 2 and one line, starting nothing', async (_what, text, why) => {
    const file = join(tmpdir(), `sandbox-bad-spec-${process.pid}-${String(why).length}.yaml`);
    writeFileSync(file, text);
    // What npm start runs, so the output is the sandbox's alone.
    const sandbox = launch('sandbox/main.ts', ['--spec', file]);
    launched = sandbox;
    expect(await sandbox.exited).toBe(2);
    const lines = sandbox.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^sandbox: cannot start: --spec ${file} `));
    expect(lines[0]).toMatch(why);
  });

  it('with --spec, documents that spec at /docs and names it, and asks the mock for its own item', async () => {
    const spec = listsOnlySpec();
    // The first start with a spec renders its page (Redocly), so it may take longer than usual.
    const { sandbox, port, mockPort } = await startSandbox(['--spec', spec], 180_000);
    const server = `http://${HOST}:${port}`;
    expect(sandbox.output()).toContain(`${server}/docs (of ${spec})`);
    expect(sandbox.output()).toContain(`http://${HOST}:${mockPort}/api/v1/lists/any-id`);
    expect(sandbox.output()).not.toContain('/api/v1/walks');
    const page = await (await request(`${server}/docs`)).body.text();
    expect(page).toContain('listLists');
    expect(page).not.toContain('listWalks');
    process.kill(-sandbox.pgid, 'SIGINT');
    expect(await sandbox.exited).toBe(0);
    // The page of this throwaway copy is built beside the project's: the test takes it away again.
    rmSync(dirname(apiReferencePathOf(spec)), { recursive: true, force: true });
  });

  it('refuses a bad --rate-limit with exit 2 and a plain line', async () => {
    const sandbox = launchNpm(['start', '--', '--rate-limit', 'fast']);
    launched = sandbox;
    expect(await sandbox.exited).toBe(2);
    expect(sandbox.output()).toContain('--rate-limit');
  });
});
