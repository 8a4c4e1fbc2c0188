/**
 * The hot path serves the two successful live answers in front of the Express app. It takes only
 * requests it can answer with 200 or 304, and its answers are the routes' answers, byte for byte.
 */
import { createServer, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../auth/keyring.ts';
import { authorizer } from '../auth/require-key.ts';
import { walksHotPath } from '../hot-path.ts';
import { WalkRepository } from '../repository.ts';
import { DEFAULT_WEB_BASE_URL } from '../web-base-url.ts';
import { demoCredentials } from '../../fixtures/index.ts';
import {
  activeWalksOf,
  type Answer,
  bearer,
  datasetFor,
  rawRequest,
  startTestServer,
  type TestServer,
} from './harness.ts';

const dataset = datasetFor();
const [primaryWalk] = activeWalksOf(dataset, 0);
const [otherWalk] = activeWalksOf(dataset, 1);
if (!primaryWalk || !otherWalk) throw new Error('the demo data set has walks in both campaigns');

interface Case {
  method: string;
  path: string;
  headers?: (keys: TestServer['keys']) => OutgoingHttpHeaders;
  body?: string;
}

const key = (keys: TestServer['keys']) => bearer(keys.CONFORMANCE_API_KEY);
const detail = `/api/v1/walks/${primaryWalk.id}`;
const gzip = { 'accept-encoding': 'gzip, deflate, br' };

/** Every kind of request the two endpoints get, answered both ways. */
const CASES: Case[] = [
  { method: 'GET', path: '/api/v1/walks', headers: key },
  { method: 'GET', path: '/api/v1/walks/', headers: key },
  { method: 'GET', path: '/api/v1/walks?limit=200', headers: key },
  { method: 'GET', path: '/api/v1/walks?limit=007&unknown=1', headers: key },
  { method: 'GET', path: '/api/v1/walks?limit=0', headers: key },
  { method: 'GET', path: '/api/v1/walks?limit=1e3', headers: key },
  { method: 'GET', path: '/api/v1/walks?limit=5&limit=6', headers: key },
  { method: 'HEAD', path: '/api/v1/walks?limit=3', headers: key },
  { method: 'GET', path: '/api/v1/walks', headers: (keys) => ({ 'x-api-key': keys.CONFORMANCE_API_KEY }) },
  { method: 'GET', path: '/api/v1/walks', headers: (keys) => bearer(keys.CONFORMANCE_EMPTY_CAMPAIGN_KEY) },
  { method: 'GET', path: '/api/v1/walks', headers: (keys) => bearer(keys.CONFORMANCE_NO_SCOPE_KEY) },
  { method: 'GET', path: '/api/v1/walks', headers: (keys) => bearer(keys.CONFORMANCE_REVOKED_KEY) },
  { method: 'GET', path: '/api/v1/walks' },
  { method: 'GET', path: '/api/v1/walks', headers: () => ({ authorization: 'Basic dXNlcjpwYXNz' }) },
  {
    method: 'GET',
    path: '/api/v1/walks',
    headers: (keys) => ({ ...key(keys), 'x-api-key': keys.CONFORMANCE_OTHER_CAMPAIGN_KEY }),
  },
  { method: 'GET', path: detail, headers: key },
  { method: 'GET', path: `${detail}/`, headers: key },
  { method: 'GET', path: detail.toUpperCase().replace('/API/V1/WALKS/', '/api/v1/walks/'), headers: key },
  { method: 'HEAD', path: detail, headers: key },
  { method: 'GET', path: `/api/v1/walks/${otherWalk.id}`, headers: key },
  { method: 'GET', path: '/api/v1/walks/not-a-uuid', headers: key },
  { method: 'GET', path: '/api/v1/walks/%E0%A4%A', headers: key },
  { method: 'GET', path: detail, headers: (keys) => bearer(keys.CONFORMANCE_NO_SCOPE_KEY) },
  { method: 'GET', path: detail },
  { method: 'GET', path: '/api/v1/walks', headers: key, body: '{"ignored":true}' },
  { method: 'POST', path: '/api/v1/walks', headers: key },
  { method: 'DELETE', path: detail, headers: key },
  { method: 'GET', path: '//api/v1/walks', headers: key },
  { method: 'GET', path: '/api/v1/walks//', headers: key },
  { method: 'GET', path: '/API/v1/walks', headers: key },
  { method: 'GET', path: '/api/v1/walks?limit=200', headers: (keys) => ({ ...key(keys), ...gzip }) },
  { method: 'GET', path: '/api/v1/walks?limit=1', headers: (keys) => ({ ...key(keys), ...gzip }) },
  { method: 'HEAD', path: detail, headers: (keys) => ({ ...key(keys), ...gzip }) },
  {
    method: 'GET',
    path: detail,
    headers: (keys) => ({ ...key(keys), 'accept-encoding': 'gzip;q=0, identity' }),
  },
  { method: 'GET', path: '/api/v1/walks/not-a-uuid', headers: (keys) => ({ ...key(keys), ...gzip }) },
];

/** What must agree: status, headers but the per-request ones, body. */
function comparable(answer: Answer): unknown {
  const {
    date: _date,
    'x-request-id': requestId,
    connection: _c,
    'keep-alive': _k,
    ...headers
  } = answer.headers;
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  return { status: answer.status, headers, bytes: answer.bytes.toString('base64') };
}

describe('hot path and Express routes', () => {
  let fast: TestServer;
  let routed: TestServer;
  beforeAll(async () => {
    fast = await startTestServer({ hotPath: true });
    routed = await startTestServer({ hotPath: false });
  });
  afterAll(async () => {
    await fast.close();
    await routed.close();
  });

  it('give the same answer to every kind of request of the two endpoints', async () => {
    for (const { method, path, headers, body } of CASES) {
      // Node frames a GET body only when told its length.
      const framing = body ? { 'content-type': 'application/json', 'content-length': body.length } : {};
      const sent = { ...headers?.(fast.keys), ...framing };
      const viaLane = await fast.send(method, path, sent, body);
      const viaExpress = await routed.send(method, path, sent, body);
      expect({ method, path, answer: comparable(viaLane) }).toEqual({
        method,
        path,
        answer: comparable(viaExpress),
      });
    }
  });

  it('give the same 304 to a matching If-None-Match', async () => {
    for (const path of ['/api/v1/walks?limit=200', detail]) {
      const { etag } = (await fast.get(path, key(fast.keys))).headers;
      const headers = { ...key(fast.keys), 'if-none-match': String(etag) };
      const viaLane = await fast.get(path, headers);
      expect(viaLane.status).toBe(304);
      expect(comparable(viaLane)).toEqual(comparable(await routed.get(path, headers)));
    }
  });

  it('count each request once against a rate limit, and answer 429 with Retry-After', async () => {
    const limited = await startTestServer({
      hotPath: true,
      rateLimit: { requestsPerMinute: 2, now: () => 0 },
    });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await limited.get(detail, key(limited.keys))).status);
      const refused = await limited.get('/api/v1/walks', key(limited.keys));
      expect([...statuses, refused.status]).toEqual([200, 200, 429, 429]);
      expect(refused.headers['retry-after']).toBe('60');
    } finally {
      await limited.close();
    }
  });
});

describe('what the hot path takes', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    const hot = walksHotPath({
      repository: new WalkRepository(dataset, DEFAULT_WEB_BASE_URL),
      authorize: authorizer(new Keyring(dataset.apiKeys), 'walks:read'),
      log: false,
    });
    // Whatever the hot path declines is marked, so the test sees which requests it took.
    server = createServer((req, res) => {
      if (hot(req, res)) return;
      req.resume();
      res.writeHead(299, { 'x-declined': 'yes' }).end();
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const taken = async (method: string, path: string, headers: OutgoingHttpHeaders = {}, body?: string) =>
    (await rawRequest(port, method, path, headers, body)).headers['x-declined'] === undefined;
  const keys = demoCredentials({ seed: dataset.seed });
  const keyed = bearer(keys.CONFORMANCE_API_KEY);

  it('takes keyed, bodiless GET and HEAD of exactly the two endpoints that succeed', async () => {
    for (const path of ['/api/v1/walks', '/api/v1/walks/', '/api/v1/walks?limit=9', detail, `${detail}/`]) {
      expect([path, await taken('GET', path, keyed), await taken('HEAD', path, keyed)]).toEqual([
        path,
        true,
        true,
      ]);
    }
    expect(await taken('GET', '/api/v1/walks', { ...keyed, 'content-length': '0' })).toBe(true);
    expect(await taken('GET', detail, { ...keyed, 'if-none-match': '*' })).toBe(true);
  });

  it('hands every other request to the app: other methods, paths, bodies, refusals, errors', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      expect([method, await taken(method, '/api/v1/walks', keyed)]).toEqual([method, false]);
    }
    for (const path of [
      '/',
      '//api/v1/walks',
      '/api/v1/walks//',
      '/API/v1/walks',
      '/api/v1/lists',
      '/docs',
    ]) {
      expect([path, await taken('GET', path, keyed)]).toEqual([path, false]);
    }
    expect(await taken('GET', `${detail}/x`, keyed)).toBe(false);
    const framed = { ...keyed, 'content-type': 'text/plain', 'content-length': 6 };
    expect(await taken('GET', '/api/v1/walks', framed, 'a body')).toBe(false);
    expect(await taken('GET', '/api/v1/walks', { ...keyed, 'transfer-encoding': 'chunked' }, '')).toBe(false);
    const refused = [
      {},
      bearer(keys.CONFORMANCE_NO_SCOPE_KEY),
      bearer(keys.CONFORMANCE_REVOKED_KEY),
      { ...keyed, 'x-api-key': keys.CONFORMANCE_OTHER_CAMPAIGN_KEY },
    ];
    for (const headers of refused) expect(await taken('GET', '/api/v1/walks', headers)).toBe(false);
    expect(await taken('GET', '/api/v1/walks?limit=0', keyed)).toBe(false);
    expect(await taken('GET', '/api/v1/walks/not-a-uuid', keyed)).toBe(false);
    expect(await taken('GET', `/api/v1/walks/${otherWalk.id}`, keyed)).toBe(false);
  });
});
