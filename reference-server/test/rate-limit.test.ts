import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../auth/rate-limit.ts';
import { bearer, errorOf, startTestServer, type TestServer, validBody } from './harness.ts';

let server: TestServer;
let clock = 0;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: { requestsPerMinute: 3, now: () => clock } });
});
afterAll(() => server.close());

describe('per-key rate limiting (D-RATE)', () => {
  it('answers the request over the limit with 429 rate_limited and Retry-After, per key', async () => {
    const key = bearer(server.keys.CONFORMANCE_API_KEY);
    for (let i = 0; i < 3; i++) expect((await server.get('/api/v1/walks?limit=1', key)).status).toBe(200);
    clock = 15_500; // the window opened at 0: 44.5 s of it are left, rounded up
    const limited = await server.get('/api/v1/walks?limit=1', key);
    expect(limited.status).toBe(429);
    validBody('listWalks', limited);
    expect(errorOf(limited).code).toBe('rate_limited');
    expect(limited.headers['retry-after']).toBe('45');
    // Another key has its own budget; a bad key is refused as before, not counted.
    expect(
      (await server.get('/api/v1/walks', bearer(server.keys.CONFORMANCE_OTHER_CAMPAIGN_KEY))).status,
    ).toBe(200);
    expect((await server.get('/api/v1/walks', bearer(server.keys.CONFORMANCE_REVOKED_KEY))).status).toBe(401);
  });

  it('opens a new window after a minute', () => {
    let now = 1_000_000;
    const limiter = new RateLimiter({ requestsPerMinute: 2 }, () => now);
    expect([limiter.take('k'), limiter.take('k')]).toEqual([undefined, undefined]);
    now += 15_000;
    expect(limiter.take('k')).toBe(45);
    now += 45_000;
    expect(limiter.take('k')).toBeUndefined();
  });

  it('is off by default', async () => {
    const open = await startTestServer();
    try {
      const key = bearer(open.keys.CONFORMANCE_API_KEY);
      for (let i = 0; i < 20; i++) expect((await open.get('/api/v1/walks?limit=1', key)).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
