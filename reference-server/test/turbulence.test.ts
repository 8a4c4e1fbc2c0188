/**
 * Latency and faults: the delays the server schedules are what was asked, fault rates stay within
 * the binomial bounds of the asked rate over a fixed number of requests with a fixed seed, the
 * same seed replays the same failures, and each kind of fault looks as it should on the wire.
 * Delays are read from the server's own scheduling (a recording `schedule`), never timed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../command-line/flags.ts';
import type { FaultKind, TurbulenceConfig } from '../turbulence.ts';
import { parseFaultKinds, parseFaultRate, parseLatency } from '../turbulence.ts';
import { bearer, errorOf, startTestServer, type TestServer } from './harness.ts';

const REQUESTS = 400;
const started: TestServer[] = [];
afterAll(() => Promise.all(started.map((server) => server.close())));

/** A server whose delays are recorded and resumed at once. */
async function serverWith(config: Omit<TurbulenceConfig, 'schedule'>) {
  const delays: number[] = [];
  const schedule = (resume: () => void, ms: number) => {
    delays.push(ms);
    setImmediate(resume);
  };
  const server = await startTestServer({ turbulence: { ...config, schedule } });
  started.push(server);
  return { server, delays };
}

/** Statuses of `count` list requests, in order; a connection cut without an answer is 'reset'. */
async function statuses(server: TestServer, count: number): Promise<(number | 'reset')[]> {
  const key = bearer(server.keys.CONFORMANCE_API_KEY);
  const seen: (number | 'reset')[] = [];
  for (let i = 0; i < count; i++) {
    seen.push(
      await server.get('/api/v1/walks?limit=1', key).then(
        (answer) => answer.status,
        () => 'reset',
      ),
    );
  }
  return seen;
}

/** Four standard deviations either side of n·p: a correct draw leaves it once in 15,000 runs. */
function binomialBounds(n: number, p: number): [number, number] {
  const spread = 4 * Math.sqrt(n * p * (1 - p));
  return [Math.floor(n * p - spread), Math.ceil(n * p + spread)];
}

describe('latency (--latency)', () => {
  it('schedules each API answer MIN to MAX ms later, averaging within 20 % of the middle', async () => {
    const { server, delays } = await serverWith({ seed: 7, latency: { minMs: 100, maxMs: 300 } });
    await statuses(server, REQUESTS);
    expect(delays).toHaveLength(REQUESTS);
    expect(delays.every((ms) => ms >= 100 && ms <= 300)).toBe(true);
    const mean = delays.reduce((sum, ms) => sum + ms, 0) / delays.length;
    expect(Math.abs(mean - 200) / 200).toBeLessThan(0.2);
    // Spread over the range, not stuck at one end.
    expect(delays.filter((ms) => ms < 150).length).toBeGreaterThan(REQUESTS / 8);
    expect(delays.filter((ms) => ms > 250).length).toBeGreaterThan(REQUESTS / 8);
  });

  it('schedules exactly MS for a fixed latency, and nothing for the docs page', async () => {
    const { server, delays } = await serverWith({ seed: 7, latency: { minMs: 150, maxMs: 150 } });
    await statuses(server, 10);
    await server.get('/docs');
    await server.get('/openapi.yaml');
    expect(delays).toEqual(Array(10).fill(150));
  });
});

describe('faults (--faults, --fault-kinds)', () => {
  it('fails a share of requests within the binomial bounds of the rate, each kind about as often', async () => {
    const { server } = await serverWith({ seed: 11, faults: { rate: 0.2, kinds: ['429', '500'] } });
    const seen = await statuses(server, REQUESTS);
    const count = (status: number) => seen.filter((seenStatus) => seenStatus === status).length;
    const [low, high] = binomialBounds(REQUESTS, 0.2);
    expect(count(429) + count(500)).toBeGreaterThanOrEqual(low);
    expect(count(429) + count(500)).toBeLessThanOrEqual(high);
    const [kindLow, kindHigh] = binomialBounds(REQUESTS, 0.1);
    for (const status of [429, 500]) {
      expect([status, count(status) >= kindLow && count(status) <= kindHigh]).toEqual([status, true]);
    }
    expect(count(200)).toBe(REQUESTS - count(429) - count(500));
  });

  it('replays the same failures for the same seed, and others for another seed', async () => {
    const config = { faults: { rate: 0.3, kinds: ['429', '500', 'reset'] as FaultKind[] } };
    const runs = [];
    for (const seed of [5, 5, 6])
      runs.push(await statuses((await serverWith({ seed, ...config })).server, 60));
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).not.toEqual(runs[0]);
  });

  it('answers a 429 fault with rate_limited and Retry-After, a 500 with the envelope', async () => {
    const throttled = (await serverWith({ seed: 3, faults: { rate: 1, kinds: ['429'] } })).server;
    const limited = await throttled.get('/api/v1/walks', bearer(throttled.keys.CONFORMANCE_API_KEY));
    expect([limited.status, errorOf(limited).code, limited.headers['retry-after']]).toEqual([
      429,
      'rate_limited',
      '1',
    ]);
    const failing = (await serverWith({ seed: 3, faults: { rate: 1, kinds: ['500'] } })).server;
    const failed = await failing.get('/api/v1/walks', bearer(failing.keys.CONFORMANCE_API_KEY));
    expect([failed.status, errorOf(failed).code]).toEqual([500, 'internal_error']);
    expect((await failing.get('/docs')).status).toBe(200);
  });

  it('cuts the connection with no answer (reset) or after half the body (truncated)', async () => {
    const reset = (await serverWith({ seed: 3, faults: { rate: 1, kinds: ['reset'] } })).server;
    expect(await statuses(reset, 3)).toEqual(['reset', 'reset', 'reset']);
    const cut = (await serverWith({ seed: 3, faults: { rate: 1, kinds: ['truncated'] } })).server;
    const key = bearer(cut.keys.CONFORMANCE_API_KEY);
    await expect(cut.get('/api/v1/walks?limit=200', key)).rejects.toThrow();
  });
});

describe('turbulence flags', () => {
  it('reads latency, rates and kinds, and refuses what it cannot use', () => {
    expect(parseLatency('250')).toEqual({ minMs: 250, maxMs: 250 });
    expect(parseLatency('100-400')).toEqual({ minMs: 100, maxMs: 400 });
    expect(parseFaultRate('0.05')).toBe(0.05);
    expect(parseFaultKinds('500,reset,500')).toEqual(['500', 'reset']);
    // The shared bad-value wording (command-line/flags.ts): the value as given ends the message.
    const cases = [
      [parseLatency, '--latency', ['', '400-100', '-5', '1e3', '70000']],
      [parseFaultRate, '--faults', ['1.5', '-0.1', 'often', '']],
      [parseFaultKinds, '--fault-kinds', ['', '404', '500,teapot']],
    ] as const;
    for (const [parse, flag, bads] of cases) {
      for (const bad of bads) {
        expect(() => parse(bad)).toThrow(`${flag} must be `);
        expect(() => parse(bad)).toThrow(`, not ${JSON.stringify(bad)}`);
      }
    }
    expect(() => parseFaultKinds('500,teapot')).toThrow(UsageError);
  });
});
