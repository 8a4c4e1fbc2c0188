/**
 * Response headers of an API only servers may call (D-CORS, D-CACHE, D-HEADERS), on every kind of
 * answer: successes, 304, every error status the server gives (429 and 500 included) and the
 * refusals written below Express. No CORS grant ever, `nosniff` always, keyed answers kept out of
 * shared caches, `Vary` on both key headers.
 */
import { createHash } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activeWalksOf,
  type Answer,
  bearer,
  datasetFor,
  startTestServer,
  type TestServer,
} from './harness.ts';

const EVIL_ORIGIN = 'https://evil.example';
const dataset = datasetFor();
const walkId = activeWalksOf(dataset, 0)[0]?.id ?? '';

let server: TestServer;
let limited: TestServer;
let broken: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  limited = await startTestServer({ rateLimit: { requestsPerMinute: 1, now: () => 0 } });
  const brokenData = structuredClone(dataset);
  const keyHash = createHash('sha256').update(server.keys.CONFORMANCE_API_KEY).digest('hex');
  const record = brokenData.apiKeys.find((candidate) => candidate.hash === keyHash);
  if (record) record.campaignId = 'no-such-campaign';
  broken = await startTestServer({}, brokenData);
});
afterAll(() => Promise.all([server.close(), limited.close(), broken.close()]));

/** A browser's view: every request carries an Origin. */
const fromBrowser = (headers: OutgoingHttpHeaders = {}): OutgoingHttpHeaders => ({
  origin: EVIL_ORIGIN,
  ...headers,
});

async function answers(): Promise<[string, Answer][]> {
  const key = bearer(server.keys.CONFORMANCE_API_KEY);
  const list = await server.get('/api/v1/walks', fromBrowser(key));
  const limitedKey = bearer(limited.keys.CONFORMANCE_API_KEY);
  await limited.get('/api/v1/walks?limit=1', limitedKey);
  return [
    ['200 list', list],
    ['200 detail', await server.get(`/api/v1/walks/${walkId}`, fromBrowser(key))],
    ['200 HEAD', await server.send('HEAD', '/api/v1/walks', fromBrowser(key))],
    [
      '304',
      await server.get('/api/v1/walks', fromBrowser({ ...key, 'if-none-match': String(list.headers.etag) })),
    ],
    ['400 invalid_parameter', await server.get('/api/v1/walks?limit=0', fromBrowser(key))],
    [
      '400 conflicting_credentials',
      await server.get(
        '/api/v1/walks',
        fromBrowser({ ...key, 'x-api-key': server.keys.CONFORMANCE_OTHER_CAMPAIGN_KEY }),
      ),
    ],
    ['401 missing key', await server.get('/api/v1/walks', fromBrowser())],
    [
      '401 invalid key',
      await server.get('/api/v1/walks', fromBrowser(bearer(server.keys.CONFORMANCE_REVOKED_KEY))),
    ],
    ['403', await server.get('/api/v1/walks', fromBrowser(bearer(server.keys.CONFORMANCE_NO_SCOPE_KEY)))],
    ['404 walk', await server.get('/api/v1/walks/nope', fromBrowser(key))],
    ['404 endpoint', await server.get('/nope', fromBrowser(key))],
    ['404 planned', await server.get('/api/v1/lists', fromBrowser(key))],
    ['405 POST', await server.send('POST', '/api/v1/walks', fromBrowser(key), '{}')],
    [
      '405 OPTIONS preflight',
      await server.send(
        'OPTIONS',
        '/api/v1/walks',
        fromBrowser({
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization, x-api-key',
        }),
      ),
    ],
    [
      '405 OPTIONS preflight on a walk',
      await server.send(
        'OPTIONS',
        `/api/v1/walks/${walkId}`,
        fromBrowser({ 'access-control-request-method': 'GET' }),
      ),
    ],
    [
      '404 OPTIONS preflight elsewhere',
      await server.send('OPTIONS', '/anything', fromBrowser({ 'access-control-request-method': 'GET' })),
    ],
    // Refused on the declared length alone, so the client never has to push 2 MB.
    [
      '413',
      await server.send('POST', '/api/v1/walks', fromBrowser({ 'content-length': 2 * 1024 * 1024 }), 'x'),
    ],
    ['429', await limited.get('/api/v1/walks?limit=1', fromBrowser(limitedKey))],
    ['500', await broken.get('/api/v1/walks', fromBrowser(key))],
    ['200 spec', await server.get('/openapi.yaml', fromBrowser())],
  ];
}

describe('response headers on every answer (D-CORS, D-CACHE, D-HEADERS)', () => {
  it('grant no CORS, say nosniff, stay out of shared caches and vary on both key headers', async () => {
    const all = await answers();
    const statuses = all.map(([label, answer]) => [label, answer.status]);
    expect(statuses).toEqual(all.map(([label]) => [label, Number(label.slice(0, 3))]));
    for (const [label, answer] of all) {
      const names = Object.keys(answer.headers);
      expect([label, names.filter((name) => name.startsWith('access-control-'))]).toEqual([label, []]);
      expect([label, answer.headers['x-content-type-options']]).toEqual([label, 'nosniff']);
      expect([label, answer.headers['cache-control']]).toEqual([label, 'private, no-cache']);
      expect([label, answer.headers.vary]).toEqual([label, 'Authorization, x-api-key, Accept-Encoding']);
      expect([label, answer.headers['set-cookie'], answer.headers['x-powered-by']]).toEqual([
        label,
        undefined,
        undefined,
      ]);
    }
  });

  it('keep a keyed answer out of shared caches even when it is a 304', async () => {
    const key = bearer(server.keys.CONFORMANCE_API_KEY);
    const first = await server.get(`/api/v1/walks/${walkId}`, key);
    const again = await server.get(`/api/v1/walks/${walkId}`, {
      ...key,
      'if-none-match': String(first.headers.etag),
    });
    expect(again.status).toBe(304);
    expect(again.headers['cache-control']).toMatch(/\bprivate\b/);
    expect(again.headers['cache-control']).not.toMatch(/\bpublic\b|s-maxage/);
  });
});

describe('headers of the refusals written below Express', () => {
  it.each([
    ['an unparseable request', 'GET /api/v1/walks HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400],
    [
      '20 KB of headers',
      `GET /api/v1/walks HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
    ],
    ['CONNECT', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.example\r\n\r\n', 405],
  ])('%s: nosniff, no-store, no CORS grant', async (_label, request, status) => {
    const head = await rawHead(request);
    expect(head.status).toBe(status);
    expect(head.headers['x-content-type-options']).toBe('nosniff');
    expect(head.headers['cache-control']).toBe('no-store');
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(head.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});

describe('a request without Host', () => {
  it('is refused by the app, with the headers of every answer and the connection closed', async () => {
    const head = await rawHead('GET /api/v1/walks HTTP/1.1\r\nOrigin: https://evil.example\r\n\r\n');
    expect(head.status).toBe(400);
    expect(head.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(head.headers['x-content-type-options']).toBe('nosniff');
    expect(head.headers['cache-control']).toBe('private, no-cache');
    expect(head.headers.connection).toBe('close');
    expect(Object.keys(head.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});

/** Status and headers of the answer to raw request bytes (read until the server closes; 5 s cap). */
function rawHead(request: string): Promise<{ status: number; headers: Record<string, string> }> {
  const port = Number(new URL(server.baseUrl).port);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(Buffer.from(request, 'latin1')));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 5 s'));
    }, 5_000);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const [statusLine = '', ...lines] = text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        headers[line.slice(0, line.indexOf(':')).trim().toLowerCase()] = line
          .slice(line.indexOf(':') + 1)
          .trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers });
    });
  });
}
