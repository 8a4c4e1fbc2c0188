/**
 * The client's retry rules, against a scripted server on a real socket: each request gets the next
 * scripted behaviour (an answer, a hang, a reset, a cut body). Waiting is recorded, not slept, and
 * the jitter's source is fixed, so nothing here depends on the clock except the one timeout case,
 * where the server never answers at all.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  backoff,
  createWalksClient,
  type RetryNotice,
  type WalksClientOptions,
} from '../client.ts';

const KEY = 'svc_sk_live_retrytestkeyretrytestkey';
const WALK = { id: '93bfb174-4e7a-4a37-9c9d-b45ef12d5123', name: 'Maple', stops: [] };

interface Scripted {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}
type Behaviour = 'hang' | 'reset' | 'cut' | Scripted;
const ok: Scripted = { status: 200, body: { ok: true, data: WALK } };
const failure = (status: number, code: string, headers?: Record<string, string>) => ({
  status,
  body: { ok: false, error: { code, message: `${code} here` } },
  ...(headers ? { headers } : {}),
});

let server: Server;
let baseUrl: string;
let script: Behaviour[] = [];
let received = 0;
const sockets = new Set<Socket>();

function answer(req: IncomingMessage, res: ServerResponse): void {
  received += 1;
  const next = script.shift() ?? ok;
  if (next === 'hang') return;
  if (next === 'reset') return void req.socket.destroy();
  if (next === 'cut') {
    const body = JSON.stringify(ok.body);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
    res.write(body.slice(0, 10));
    return void setImmediate(() => req.socket.destroy());
  }
  res.writeHead(next.status, { 'Content-Type': 'application/json', ...next.headers });
  res.end(JSON.stringify(next.body));
}

beforeAll(async () => {
  server = createServer(answer);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  script = [];
  received = 0;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** A client whose waits are recorded and whose jitter always draws its ceiling. */
function scripted(behaviours: Behaviour[], options: Partial<WalksClientOptions> = {}) {
  script = [...behaviours];
  const waits: number[] = [];
  const notices: RetryNotice[] = [];
  const client = createWalksClient({
    baseUrl,
    apiKey: KEY,
    timeoutMs: 2_000,
    random: () => 1,
    sleep: async (ms) => void waits.push(ms),
    onRetry: (notice) => notices.push(notice),
    ...options,
  });
  return { client, waits, notices };
}

async function failureOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('the partner client’s retries', { timeout: 30_000 }, () => {
  it('backs off exponentially with full jitter on 5xx, capped, then gets the walk', async () => {
    const { client, waits } = scripted([failure(500, 'internal_error'), failure(503, 'unavailable'), ok]);
    expect(await client.read('/api/v1/walks/{id}', { path: { id: WALK.id } })).toEqual(WALK);
    expect(waits).toEqual([100, 200]);
    expect(backoff(10, { baseDelayMs: 100, maxDelayMs: 5_000, random: () => 1 })).toBe(5_000);
    expect(backoff(3, { baseDelayMs: 100, maxDelayMs: 5_000, random: () => 0.25 })).toBe(200);
  });

  it('waits the Retry-After seconds on 429, and gives up on one longer than it will wait', async () => {
    const throttled = scripted([failure(429, 'rate_limited', { 'Retry-After': '3' }), ok]);
    expect(await throttled.client.read('/api/v1/walks/{id}', { path: { id: WALK.id } })).toEqual(WALK);
    expect(throttled.waits).toEqual([3_000]);

    const tooLong = scripted([failure(429, 'rate_limited', { 'Retry-After': '120' })]);
    const error = await failureOf(tooLong.client.read('/api/v1/walks/{id}', { path: { id: WALK.id } }));
    expect([error.status, error.code, error.retryAfterSeconds]).toEqual([429, 'rate_limited', 120]);
    expect(tooLong.waits).toEqual([]);
  });

  it('retries a reset connection and a cut answer', async () => {
    const { client, notices } = scripted(['reset', 'cut', ok]);
    expect(await client.read('/api/v1/walks/{id}', { path: { id: WALK.id } })).toEqual(WALK);
    expect(notices.map((n) => n.attempt)).toEqual([1, 2]);
    expect(received).toBe(3);
  });

  it('times out an attempt that never answers, and retries it', async () => {
    const { client, notices } = scripted(['hang', ok], { timeoutMs: 300 });
    expect(await client.read('/api/v1/walks/{id}', { path: { id: WALK.id } })).toEqual(WALK);
    expect(notices.map((n) => n.reason)).toEqual(['timeout']);
  });

  it.each([
    [400, 'invalid_parameter'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
  ])('never retries %i %s', async (status, code) => {
    const { client, waits } = scripted([failure(status, code), ok]);
    const error = await failureOf(client.read('/api/v1/walks/{id}', { path: { id: WALK.id } }));
    expect([error.status, error.code]).toEqual([status, code]);
    expect([received, waits.length]).toEqual([1, 0]);
  });

  it('stops after maxRetries, with the last failure', async () => {
    const { client } = scripted(Array(5).fill(failure(500, 'internal_error')), { maxRetries: 2 });
    const error = await failureOf(client.read('/api/v1/walks/{id}', { path: { id: WALK.id } }));
    expect([error.status, received]).toEqual([500, 3]);
  });

  it('shares one retry budget across requests: spent, a failure is not retried', async () => {
    const budget = { burst: 1, perRequest: 0, cap: 1 };
    const { client } = scripted([failure(500, 'internal_error'), ok, failure(500, 'internal_error')], {
      budget,
    });
    expect(await client.read('/api/v1/walks/{id}', { path: { id: WALK.id } })).toEqual(WALK);
    const error = await failureOf(client.read('/api/v1/walks/{id}', { path: { id: WALK.id } }));
    expect([error.status, received]).toEqual([500, 3]);
  });

  it('never puts the key in an error or a retry notice', async () => {
    const { client, notices } = scripted([
      'reset',
      failure(500, 'internal_error'),
      failure(401, 'unauthorized'),
    ]);
    const error = await failureOf(client.read('/api/v1/walks/{id}', { path: { id: WALK.id } }));
    const said = JSON.stringify({ notices, error, message: error.message, stack: error.stack });
    expect(notices).toHaveLength(2);
    expect(said).not.toContain(KEY);
  });
});
