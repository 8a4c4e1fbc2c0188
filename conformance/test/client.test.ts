/** The client's manners toward a target: concurrency, budget, memoization, 429, identity, codings. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../transport/client.ts';
import { THROTTLED_RETRIES } from '../transport/retry.ts';
import { USER_AGENT } from '../core/tool.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';
import { HIDDEN_HOST, startForwardProxy } from '../../tools/test-support/reach-parts.ts';
import { configFor } from './harness.ts';

const KEY = 'svc_sk_live_clienttestkey00000000000000000001';
const opened: (Listening | HttpClient)[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

async function setUp(handler: (req: IncomingMessage, res: ServerResponse) => void, overrides = {}) {
  const listening = await listen(handler);
  const client = new HttpClient(configFor(listening.baseUrl, { CONFORMANCE_API_KEY: KEY }, overrides));
  opened.push(client, listening);
  return client;
}

const ok = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true,"data":[]}');
};

describe('the HTTP client', () => {
  it('never has more requests in flight than the concurrency bound, and uses all of it', async () => {
    // The server answers a batch only once three requests are held, so a correct client reaches
    // three whatever the machine's speed; the batch is held a moment longer, so a client that lets a
    // fourth go shows it (one allowing fewer than three never gets an answer and times out).
    const held: ServerResponse[] = [];
    let most = 0;
    const client = await setUp(
      (_req, res) => {
        held.push(res);
        most = Math.max(most, held.length);
        if (held.length === 3) setTimeout(() => held.splice(0).forEach(ok), 30);
      },
      { concurrency: 3 },
    );
    await Promise.all(Array.from({ length: 12 }, (_, i) => client.send({ path: `/p${i}` })));
    expect(most).toBe(3);
    expect(client.sent).toBe(12);
  });

  it('fetches identical GETs once and shares the answer', async () => {
    let hits = 0;
    const client = await setUp((_req, res) => {
      hits++;
      ok(res);
    });
    const spec = {
      path: '/api/v1/walks',
      query: 'limit=1',
      auth: { key: 'CONFORMANCE_API_KEY', via: 'bearer' },
    } as const;
    const [a, b] = await Promise.all([client.send(spec), client.send(spec)]);
    await client.send({ ...spec, auth: { key: 'CONFORMANCE_API_KEY', via: 'x-api-key' } });
    expect(a).toBe(b);
    expect(hits).toBe(2);
    expect(client.memoized).toBe(1);
  });

  it('stops at the request budget without sending more', async () => {
    let hits = 0;
    const client = await setUp(
      (_req, res) => {
        hits++;
        ok(res);
      },
      { maxRequests: 2 },
    );
    const exchanges = await Promise.all([1, 2, 3].map((i) => client.send({ path: `/p${i}` })));
    expect(hits).toBe(2);
    expect(exchanges.filter((e) => e.error?.kind === 'budget')).toHaveLength(1);
  });

  it('waits out a 429 with Retry-After once, then takes the answer', async () => {
    let hits = 0;
    const client = await setUp((_req, res) => {
      if (++hits === 1) {
        res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' });
        res.end('{"ok":false,"error":{"code":"rate_limited","message":"Slow down."}}');
      } else ok(res);
    });
    const exchange = await client.send({ path: '/api/v1/walks' });
    expect(exchange.response?.status).toBe(200);
    expect(exchange.retries).toBe(1);
  });

  it('waits out 429s several times, bounded, and counts every attempt', async () => {
    let hits = 0;
    const client = await setUp((_req, res) => {
      if (++hits <= 3) {
        res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' });
        res.end('{"ok":false,"error":{"code":"rate_limited","message":"Slow down."}}');
      } else ok(res);
    });
    const exchange = await client.send({ path: '/api/v1/walks' });
    expect(exchange.response?.status).toBe(200);
    expect(exchange.retries).toBe(3);
    expect(client.sent).toBe(4);
    const endless = await setUp((_req, res) => {
      res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' });
      res.end('{"ok":false,"error":{"code":"rate_limited","message":"Slow down."}}');
    });
    const given = await endless.send({ path: '/api/v1/walks' });
    expect(given.response?.status).toBe(429);
    // Throttling is waited out more often than a failure is tried again (`--retries`), but not forever.
    expect(given.retries).toBe(THROTTLED_RETRIES);
    expect(endless.sent).toBe(THROTTLED_RETRIES + 1);
    // Every attempt is an exchange of its own, each superseded one naming the attempt after it.
    expect(endless.exchanges.map((e) => [e.seq, e.retriedAs, e.retriedFor])).toEqual([
      ...Array.from({ length: THROTTLED_RETRIES }, (_, i) => [i + 1, i + 2, '429']),
      [THROTTLED_RETRIES + 1, undefined, undefined],
    ]);
  });

  it.each([
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ])('decodes %s even when it asked for identity, and says it came coded', async (coding, encode) => {
    const client = await setUp((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
      res.end(encode(Buffer.from('{"ok":true,"data":[]}')));
    });
    const exchange = await client.send({ path: '/api/v1/walks' });
    expect(exchange.response?.json).toEqual({ ok: true, data: [] });
    expect(exchange.response?.encoded?.coding).toBe(coding);
  });

  it('reports a body that does not decode from its coding as undecodable', async () => {
    const client = await setUp((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end('{"ok":true,"data":[]}');
    });
    const exchange = await client.send({ path: '/api/v1/walks' });
    expect(exchange.response).toBeUndefined();
    expect(exchange.error?.kind).toBe('undecodable');
  });

  it('does not wait longer than allowed: a long Retry-After is reported, not slept on', async () => {
    const client = await setUp((_req, res) => {
      res.writeHead(429, { 'retry-after': '3600', 'content-type': 'application/json' });
      res.end('{"ok":false,"error":{"code":"rate_limited","message":"Slow down."}}');
    });
    const exchange = await client.send({ path: '/api/v1/walks' });
    expect(exchange.response?.status).toBe(429);
    expect(exchange.retries).toBe(0);
  });

  it('names itself and sends keys only as asked, showing them by name', async () => {
    const seen: IncomingMessage['headers'][] = [];
    const client = await setUp((req, res) => {
      seen.push(req.headers);
      ok(res);
    });
    const exchange = await client.send({
      path: '/api/v1/walks',
      auth: { key: 'CONFORMANCE_API_KEY', via: 'x-api-key' },
    });
    expect(seen[0]?.['user-agent']).toBe(USER_AGENT);
    expect(USER_AGENT).toMatch(/^canvassing-conformance\/\d+\.\d+\.\d+/);
    expect(seen[0]?.['x-api-key']).toBe(KEY);
    expect(exchange.request.keys).toEqual(['CONFORMANCE_API_KEY']);
    expect(JSON.stringify(exchange.request)).not.toContain(KEY);
    expect(exchange.request.curl).toBe(
      `curl -sS -i '${exchange.request.url}' -H "x-api-key: $CONFORMANCE_API_KEY"`,
    );
  });

  it('sends a made-up key shown as a shell expression that makes another one', async () => {
    const seen: (string | undefined)[] = [];
    const client = await setUp((req, res) => {
      seen.push(req.headers.authorization);
      ok(res);
    });
    const exchange = await client.send({ path: '/api/v1/walks', madeUpKey: 'bearer' });
    expect(seen[0]).toMatch(/^Bearer svc_sk_live_[0-9a-f]{48}$/);
    expect(exchange.request.curl).toContain('-H "Authorization: Bearer svc_sk_live_$(openssl rand -hex 24)"');
  });

  it('sends a path with a dot segment as written, below the base path, with curl told to keep it', async () => {
    const seen: (string | undefined)[] = [];
    const listening = await listen((req, res) => {
      seen.push(req.url);
      ok(res);
    });
    const client = new HttpClient(configFor(`${listening.baseUrl}/base`, { CONFORMANCE_API_KEY: KEY }));
    opened.push(client, listening);
    const paths = ['/api/v1/./walks', '/api/v1/x/../walks', '/api/v1/x/%2E%2e/walks', '/api/v1/walks/./w-1'];
    const exchanges = await Promise.all(paths.map((path) => client.send({ path, query: 'limit=1' })));
    expect(seen.sort()).toEqual(paths.map((path) => `/base${path}?limit=1`).sort());
    expect(exchanges.map((e) => e.response?.status)).toEqual([200, 200, 200, 200]);
    expect(exchanges[1]?.request.url).toBe(`${listening.baseUrl}/base/api/v1/x/../walks?limit=1`);
    expect(exchanges[1]?.request.curl).toContain(`--path-as-is '${exchanges[1]?.request.url}'`);
    // Any other path still goes by its URL, and its reproduction needs no flag.
    const plain = await client.send({ path: '/api/v1/walks/.well-known' });
    expect(seen.at(-1)).toBe('/base/api/v1/walks/.well-known');
    expect(plain.request.curl).not.toContain('--path-as-is');
  });

  it('sends a dot segment as written through a proxy too, in the absolute-URI request', async () => {
    const proxy = await startForwardProxy();
    const listening = await listen((_req, res) => ok(res));
    opened.push(proxy, listening);
    const target = `http://${HIDDEN_HOST}:${new URL(listening.baseUrl).port}`;
    const client = new HttpClient(
      configFor(
        target,
        { CONFORMANCE_API_KEY: KEY },
        {
          reach: { insecure: false, headers: [], proxy: { url: proxy.baseUrl, from: '--proxy' } },
        },
      ),
    );
    opened.push(client);
    const exchange = await client.send({ path: '/api/v1/x/../walks' });
    expect(exchange.response?.status).toBe(200);
    expect(proxy.log).toEqual([`GET ${target}/api/v1/x/../walks`]);
  });
});
