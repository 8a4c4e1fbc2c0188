/**
 * Steering (D-SANDBOX-STEERING): `Prefer: code=NNN` on an API request with an accepted key gets
 * that status's answer in the envelope and `Preference-Applied`; anything else is answered as if
 * the header were not there.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preferredCode } from '../steering.ts';
import { bearer, errorOf, startTestServer, type TestServer, validBody } from './harness.ts';

let server: TestServer;
let clocked: TestServer;
beforeAll(async () => {
  [server, clocked] = await Promise.all([startTestServer(), startTestServer({ clock: { rate: 0 } })]);
});
afterAll(() => Promise.all([server.close(), clocked.close()]));

const DETAIL = '/api/v1/walks/93bfb174-4e7a-4a37-9c9d-b45ef12d5123';
const EXPECTED: [number, string][] = [
  [401, 'unauthorized'],
  [403, 'forbidden'],
  [404, 'not_found'],
  [429, 'rate_limited'],
  [500, 'internal_error'],
  [503, 'service_unavailable'],
];

describe('Prefer: code=NNN with an accepted key', () => {
  it.each(EXPECTED)(
    'answers %i %s on both endpoints, in the envelope, with Preference-Applied',
    async (status, code) => {
      const firstWalk = server.dataset.walks.find((walk) => walk.state === 'active')?.id as string;
      for (const path of ['/api/v1/walks', `/api/v1/walks/${firstWalk}`]) {
        const answer = await server.get(path, {
          ...bearer(server.keys.CONFORMANCE_API_KEY),
          prefer: `code=${status}`,
        });
        expect(answer.status, path).toBe(status);
        expect(errorOf(answer).code).toBe(code);
        expect(answer.headers['preference-applied']).toBe(`code=${status}`);
        if (status === 429 || status === 503) expect(answer.headers['retry-after']).toBe('1');
        if (status === 401) expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
        // The list documents no 404 (the answer is "No such endpoint."); the envelope holds anyway.
        if (path !== '/api/v1/walks' || status !== 404) {
          validBody(path === '/api/v1/walks' ? 'listWalks' : 'getWalk', answer);
        }
      }
    },
  );

  it('reads the preference among others, in either key header, on the clock too', async () => {
    for (const target of [server, clocked]) {
      const answer = await target.get(DETAIL, {
        'x-api-key': target.keys.CONFORMANCE_API_KEY,
        prefer: 'respond-async, CODE="503"; x=1',
      });
      expect(answer.status).toBe(503);
      expect(answer.headers['preference-applied']).toBe('code=503');
    }
  });

  it.each(['code=200', 'code=999', 'code=400', 'code=abc', 'code', 'dynamic=true', 'example=walk'])(
    'ignores Prefer: %s, without Preference-Applied',
    async (prefer) => {
      const key = bearer(server.keys.CONFORMANCE_API_KEY);
      const plain = await server.get('/api/v1/walks?limit=3', key);
      const answer = await server.get('/api/v1/walks?limit=3', { ...key, prefer });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(plain.text);
      expect(answer.headers['preference-applied']).toBeUndefined();
    },
  );

  it('is ignored without an accepted key: each refusal keeps its own answer', async () => {
    const cases: [OutgoingHttpHeaders, number][] = [
      [{}, 401],
      [bearer(server.keys.CONFORMANCE_REVOKED_KEY), 401],
      [bearer(server.keys.CONFORMANCE_NO_SCOPE_KEY), 403],
      [{ authorization: 'Token abc' }, 401],
    ];
    for (const [headers, status] of cases) {
      const answer = await server.get('/api/v1/walks', { ...headers, prefer: 'code=500' });
      expect(answer.status).toBe(status);
      expect(answer.headers['preference-applied']).toBeUndefined();
    }
  });

  it('is ignored outside the API', async () => {
    const answer = await server.get('/openapi.yaml', { prefer: 'code=500' });
    expect(answer.status).toBe(200);
    expect(answer.headers['preference-applied']).toBeUndefined();
  });

  it('reads code= from Prefer header values as RFC 7240 writes them', () => {
    expect(preferredCode('code=429')).toBe(429);
    expect(preferredCode(['wait=10', 'code="401"'])).toBe(401);
    expect(preferredCode('Code = 404 ; foo')).toBe(404);
    expect(preferredCode('code=4040')).toBeUndefined();
    expect(preferredCode(undefined)).toBeUndefined();
  });
});
