/**
 * Every variant stays within the written spec: the conformance CLI, run as a partner runs it (its
 * own process, `--base-url` and the printed credentials in the environment), exits 0 in default
 * mode against the reference server under each of variant seeds 1 to 8. Against injected 500s and
 * resets it exits 1 (they are failures); against a server that only throttles with 429 and
 * `Retry-After` it exits 0 (a client that honours Retry-After gets its answers).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, type StartOptions, startReferenceServer } from '../start.ts';
import { variantOf } from '../variants/variant.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'variants-conformance-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The CLI's exit status against a reference server started with `options`. */
async function conformanceExit(
  name: string,
  options: StartOptions,
): Promise<{ code: number | null; tail: string }> {
  const server: RunningServer = await startReferenceServer({ ...options, port: 0, log: false });
  try {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'conformance/main.ts',
        '--base-url',
        server.baseUrl,
        '--reporter',
        'json',
        '--output',
        join(dir, `${name}.json`),
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...server.credentials, NO_COLOR: '1', CONFORMANCE_STRICT: '' },
      },
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, tail: output.slice(-1_500) };
  } finally {
    await server.close();
  }
}

describe('conformance CLI against variants, faults and throttling', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'passes default mode against variant %i',
    async (seed) => {
      const { code, tail } = await conformanceExit(`variant-${seed}`, { variant: variantOf(seed) });
      expect(code, tail).toBe(0);
    },
    60_000,
  );

  it('fails (exit 1) against 20 % of requests answered 500 or reset', async () => {
    const faults = { rate: 0.2, kinds: ['500', 'reset'] as const };
    const { code, tail } = await conformanceExit('faults', { turbulence: { seed: 1, faults } });
    expect(code, tail).toBe(1);
  }, 60_000);

  it('passes (exit 0) against a server that only throttles with 429 and Retry-After', async () => {
    // A lower rate than above: each 429 costs the suite a one-second wait before its retry.
    const faults = { rate: 0.05, kinds: ['429'] as const };
    const { code, tail } = await conformanceExit('throttled', { turbulence: { seed: 1, faults } });
    expect(code, tail).toBe(0);
  }, 90_000);
});
