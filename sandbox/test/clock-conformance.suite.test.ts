/**
 * The conformance suite passes the sandbox at every hour of its canvassing day (`--clock`), as a
 * partner runs it: the CLI's own entry, `--base-url` and the printed credentials. Between runs the
 * day is moved on an hour by `POST /sandbox/clock`; the clock does not move by itself, so each run
 * judges one instant. A variant on the same clock passes too: `--clock` and `--variant` both apply.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../conformance/cli/cli.ts';
import { DAY_SECONDS } from '../../fixtures/canvassing-day.ts';
import { type RunningServer, type StartOptions, startReferenceServer } from '../../reference-server/start.ts';
import { variantOf } from '../../reference-server/variants/variant.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clock-conformance-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function conformance(server: RunningServer, name: string): Promise<{ status: number; output: string }> {
  let output = '';
  const io = { stdout: (text: string) => (output += text), stderr: (text: string) => (output += text) };
  const argv = ['--base-url', server.baseUrl, '--reporter', 'json', '--output', join(dir, `${name}.json`)];
  const status = await main(argv, { ...server.credentials, NO_COLOR: '1' }, io);
  return { status, output: output.slice(-1_500) };
}

async function advanceOneHour(server: RunningServer): Promise<void> {
  const response = await fetch(`${server.baseUrl}/sandbox/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advance: '1h' }),
  });
  expect(response.status).toBe(200);
  await response.body?.cancel();
}

async function passesEveryHour(options: StartOptions, name: string, hours: number[]): Promise<void> {
  const server = await startReferenceServer({ ...options, port: 0, log: false, clock: { rate: 0 } });
  try {
    for (let hour = 0; hour <= Math.max(...hours); hour++) {
      if (hours.includes(hour)) {
        const run = await conformance(server, `${name}-${hour}`);
        expect(run.status, `hour ${hour}:\n${run.output}`).toBe(0);
      }
      await advanceOneHour(server);
    }
  } finally {
    await server.close();
  }
}

describe('the conformance suite on the sandbox clock', { timeout: 600_000 }, () => {
  it('passes the sandbox at every hour of the canvassing day', async () => {
    const hours = Array.from({ length: DAY_SECONDS / 3600 + 1 }, (_, hour) => hour);
    await passesEveryHour({}, 'ours', hours);
  });

  it('passes a variant on the clock at the start, the busiest hour and the end of the day', async () => {
    await passesEveryHour({ variant: variantOf(3) }, 'variant-3', [0, 6, 24]);
  });
});
