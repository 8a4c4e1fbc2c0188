/**
 * Optional per-key rate limiting (D-RATE), driven by an injected clock instead of sleeps: a fixed
 * one-minute window per key, 429 `rate_limited` in the envelope with an integer `Retry-After`, one
 * budget per key whichever header carries it, nothing counted before the key is known.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.ts';
import { resolveConfig } from '../config.ts';
import {
  activeWalksOf,
  bearer,
  datasetFor,
  errorOf,
  startTestServer,
  type TestServer,
  validBody,
} from './harness.ts';

const LIMIT = 3;
let now = 0;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: { requestsPerMinute: LIMIT, now: () => now } });
});
afterAll(() => server.close());

const walkPath = () => `/api/v1/walks/${activeWalksOf(server.dataset, 0)[0]?.id}`;

/** A fresh minute far from the previous test's, so each test starts with full budgets. */
function nextMinute(): void {
  now += 10 * 60_000;
}

describe('per-key rate limiting with an injected clock', () => {
  it('answers the request over the limit with 429 rate_limited, in the envelope, with Retry-After in whole seconds', async () => {
    nextMinute();
    const key = bearer(server.keys.CONFORMANCE_API_KEY);
    for (let i = 0; i < LIMIT; i++) expect((await server.get('/api/v1/walks?limit=1', key)).status).toBe(200);
    const list = await server.get('/api/v1/walks?limit=1', key);
    const detail = await server.get(walkPath(), key);
    for (const [operation, answer] of [
      ['listWalks', list],
      ['getWalk', detail],
    ] as const) {
      expect(answer.status).toBe(429);
      validBody(operation, answer);
      expect(errorOf(answer)).toEqual({
        code: 'rate_limited',
        message: 'Too many requests for this key; retry after the number of seconds in Retry-After.',
      });
      expect(answer.headers['retry-after']).toBe('60');
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it('counts Retry-After down with the clock and opens a new window after a minute', async () => {
    nextMinute();
    const start = now;
    const key = { 'x-api-key': server.keys.CONFORMANCE_API_KEY };
    for (let i = 0; i < LIMIT; i++) await server.get('/api/v1/walks', key);
    const retryAfter = async () => (await server.get('/api/v1/walks', key)).headers['retry-after'];
    now = start + 15_200;
    expect(await retryAfter()).toBe('45');
    now = start + 59_001;
    expect(await retryAfter()).toBe('1');
    now = start + 59_999;
    expect(await retryAfter()).toBe('1');
    now = start + 60_000;
    expect((await server.get('/api/v1/walks', key)).status).toBe(200);
  });

  it('keeps one budget per key, whichever header carries it and whichever endpoint it asks', async () => {
    nextMinute();
    const keyValue = server.keys.CONFORMANCE_API_KEY;
    expect((await server.get('/api/v1/walks', bearer(keyValue))).status).toBe(200);
    expect((await server.get(walkPath(), { 'x-api-key': keyValue })).status).toBe(200);
    expect((await server.get('/api/v1/walks', { ...bearer(keyValue), 'x-api-key': keyValue })).status).toBe(
      200,
    );
    expect((await server.get('/api/v1/walks', { authorization: `bearer  ${keyValue}` })).status).toBe(429);
    // Another key, of the same campaign or another, has its own budget.
    expect(
      (await server.get('/api/v1/walks', bearer(server.keys.CONFORMANCE_OTHER_CAMPAIGN_KEY))).status,
    ).toBe(200);
    expect(
      (await server.get('/api/v1/walks', bearer(server.keys.CONFORMANCE_EMPTY_CAMPAIGN_KEY))).status,
    ).toBe(200);
  });

  it('counts every answered request of a key, a refused limit included', async () => {
    nextMinute();
    const key = bearer(server.keys.CONFORMANCE_API_KEY);
    for (let i = 0; i < LIMIT; i++) expect((await server.get('/api/v1/walks?limit=0', key)).status).toBe(400);
    expect((await server.get('/api/v1/walks?limit=1', key)).status).toBe(429);
  });

  it('counts nothing before the key is known: bad keys, unknown paths and other methods are never 429', async () => {
    nextMinute();
    const keyValue = server.keys.CONFORMANCE_API_KEY;
    for (let i = 0; i < 3 * LIMIT; i++) {
      expect((await server.get('/api/v1/walks', bearer(server.keys.CONFORMANCE_REVOKED_KEY))).status).toBe(
        401,
      );
      expect((await server.get('/api/v1/walks', bearer(`svc_sk_live_${'Z'.repeat(30)}${i}`))).status).toBe(
        401,
      );
      expect((await server.get('/api/v1/walks')).status).toBe(401);
      expect((await server.get('/nope', bearer(keyValue))).status).toBe(404);
      expect((await server.send('POST', '/api/v1/walks', bearer(keyValue))).status).toBe(405);
      expect((await server.get('/api/v1/lists', bearer(keyValue))).status).toBe(404);
    }
    for (let i = 0; i < LIMIT; i++)
      expect((await server.get('/api/v1/walks', bearer(keyValue))).status).toBe(200);
  });

  it('is off by default: many requests in one instant all pass', async () => {
    const open = await startTestServer();
    try {
      const key = bearer(open.keys.CONFORMANCE_API_KEY);
      const statuses = await Promise.all(
        Array.from({ length: 50 }, () =>
          open.get('/api/v1/walks?limit=1', key).then((answer) => answer.status),
        ),
      );
      expect(new Set(statuses)).toEqual(new Set([200]));
    } finally {
      await open.close();
    }
  });

  it('refuses a rate that is not a positive integer when the app is built', () => {
    for (const requestsPerMinute of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => resolveConfig({ rateLimit: { requestsPerMinute } })).toThrow(RangeError);
      expect(() =>
        createApp({ dataset: datasetFor(), config: { log: false, rateLimit: { requestsPerMinute } } }),
      ).toThrow(/positive integer/);
    }
  });
});
