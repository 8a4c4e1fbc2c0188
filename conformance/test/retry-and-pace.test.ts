/**
 * The client's retry policy and pace: what is tried again (a 429 on any request; a 503 or a reset
 * with no answer on GET and HEAD), how often (`--retries`), that every attempt is an exchange and
 * counts in the budget; `--rate-limit` caps the starts of any one-second window; a 429 teaches the
 * client the rate a per-key limit allows and it keeps to it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRateLimitedProxy } from '../../tools/test-support/rate-limited.ts';
import { HttpClient } from '../transport/client.ts';
import { busiestSecond } from '../transport/windows.ts';
import { DEFAULTS } from '../cli/config.ts';
import type { SuiteConfig } from '../core/configuration.ts';
import { isFinal } from '../core/exchange.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import type { Har } from '../reporters/har.ts';
import type { Report } from '../core/report-model.ts';
import type { KeyName } from '../core/roles.ts';
import { configFor, runCli } from './harness.ts';

const KEY = 'svc_sk_live_retrytestkey000000000000000000001';
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

async function clientOf(baseUrl: string, overrides: Partial<SuiteConfig> = {}): Promise<HttpClient> {
  const client = new HttpClient(configFor(baseUrl, { CONFORMANCE_API_KEY: KEY }, overrides));
  opened.push(client);
  return client;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Listening> {
  const listening = await listen(handler);
  opened.push(listening);
  return listening;
}

const ok = (res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"data":[]}');
const unavailable = (res: ServerResponse) =>
  res
    .writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' })
    .end('{"ok":false,"error":{"code":"unavailable","message":"Try again."}}');

/** A 503 that does not say when to come back: a failure, not the target's pace. */
const failing = (res: ServerResponse) =>
  res
    .writeHead(503, { 'content-type': 'application/json' })
    .end('{"ok":false,"error":{"code":"unavailable","message":"Down."}}');
const throttling = (res: ServerResponse) =>
  res
    .writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' })
    .end('{"ok":false,"error":{"code":"rate_limited","message":"Slow down."}}');

/** Fails the first `n` requests with `fail`, then answers 200. */
async function failingFirst(n: number, fail: (res: ServerResponse) => void) {
  let hits = 0;
  const server = await serve((_req, res) => (++hits <= n ? fail(res) : ok(res)));
  return { server, hits: () => hits };
}

const reset = (res: ServerResponse) => res.socket?.resetAndDestroy();

describe('the retry policy', () => {
  it('tries a 503 to a GET again, each attempt an exchange, the request ending with its last', async () => {
    const { server } = await failingFirst(1, unavailable);
    const client = await clientOf(server.baseUrl);
    const final = await client.send({ path: '/api/v1/walks' });
    expect(final.response?.status).toBe(200);
    expect(client.exchanges).toHaveLength(2);
    const [first, second] = client.exchanges;
    expect(first).toMatchObject({ seq: 1, retriedAs: 2, retriedFor: '503', response: { status: 503 } });
    expect(second).toBe(final);
    expect(client.exchanges.filter(isFinal)).toEqual([final]);
    expect(client.requestsOf(100)).toMatchObject({ sent: 2, retried: { '503': 1 } });
  });

  it('tries a reset with no answer to a GET again', async () => {
    const { server } = await failingFirst(1, reset);
    const client = await clientOf(server.baseUrl);
    const final = await client.send({ path: '/api/v1/walks' });
    expect(final.response?.status).toBe(200);
    expect(client.exchanges[0]).toMatchObject({ retriedFor: 'reset', error: { kind: 'reset' } });
  });

  it.each([
    ['a 503 without Retry-After', failing],
    ['a reset', reset],
  ])('never tries %s to a write again: it may have been acted on', async (_what, fail) => {
    const { server, hits } = await failingFirst(1, fail);
    const client = await clientOf(server.baseUrl);
    const final = await client.send({ method: 'DELETE', path: '/api/v1/walks/x' });
    expect(final.response?.status ?? final.error?.kind).not.toBe(200);
    expect(hits()).toBe(1);
    expect(client.exchanges).toHaveLength(1);
  });

  it('tries a 503 with Retry-After to a write again: the target says it did not handle it', async () => {
    const { server } = await failingFirst(1, unavailable);
    const client = await clientOf(server.baseUrl);
    expect((await client.send({ method: 'POST', path: '/api/v1/walks', body: '{}' })).response?.status).toBe(
      200,
    );
  });

  it('tries a 429 to a write again: the target did not act on it', async () => {
    const { server } = await failingFirst(1, (res) =>
      res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{}'),
    );
    const client = await clientOf(server.baseUrl);
    expect((await client.send({ method: 'POST', path: '/api/v1/walks', body: '{}' })).response?.status).toBe(
      200,
    );
  });

  it('--retries 0 takes the first answer; --retries 2 stops a failing 503 after three attempts', async () => {
    const { server } = await failingFirst(10, failing);
    const none = await clientOf(server.baseUrl, { retries: 0 });
    expect((await none.send({ path: '/a' })).response?.status).toBe(503);
    expect(none.sent).toBe(1);
    const two = await clientOf(server.baseUrl, { retries: 2 });
    expect((await two.send({ path: '/b' })).response?.status).toBe(503);
    expect(two.sent).toBe(3);
  });

  it.each([
    ['a 429', throttling],
    ['a 503 with Retry-After', unavailable],
  ])(
    "waits out %s and asks again beyond --retries: the target's pace, not a failure",
    async (_what, slow) => {
      const { server } = await failingFirst(6, slow);
      const client = await clientOf(server.baseUrl, { retries: 2 });
      expect((await client.send({ path: '/a' })).response?.status).toBe(200);
      expect(client.sent).toBe(7);
    },
  );

  it('--retries 0 asks a throttled request once', async () => {
    const { server } = await failingFirst(1, throttling);
    const none = await clientOf(server.baseUrl, { retries: 0 });
    expect((await none.send({ path: '/a' })).response?.status).toBe(429);
    expect(none.requestsOf(10).rateLimit?.suggested).toMatch(/^\d+\/s$/);
  });

  it('a request waiting out its Retry-After leaves its place in flight to the others', async () => {
    let slow = true;
    const server = await serve((req, res) => {
      if (req.url === '/slow' && slow) {
        slow = false;
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end('{}');
      } else ok(res);
    });
    const client = await clientOf(server.baseUrl, { concurrency: 1 });
    const order: string[] = [];
    await Promise.all(
      ['/slow', '/a', '/b'].map((path) =>
        client.send({ path }).then((e) => order.push(`${path} ${e.response?.status}`)),
      ),
    );
    expect(order).toEqual(['/a 200', '/b 200', '/slow 200']);
  });

  it('counts every attempt in the budget, and keeps the answer in hand when the budget is spent', async () => {
    const { server, hits } = await failingFirst(10, unavailable);
    const client = await clientOf(server.baseUrl, { maxRequests: 2 });
    const final = await client.send({ path: '/api/v1/walks' });
    expect(final.response?.status).toBe(503);
    expect(hits()).toBe(2);
    const next = await client.send({ path: '/api/v1/other' });
    expect(next.error?.kind).toBe('budget');
  });

  it('a request whose every attempt is reset counts once toward giving up on the target', async () => {
    let hits = 0;
    const server = await serve((req, res) => {
      hits++;
      if (req.url?.startsWith('/bad')) reset(res);
      else ok(res);
    });
    const client = await clientOf(server.baseUrl);
    expect((await client.send({ path: '/bad' })).error?.kind).toBe('reset');
    expect((await client.send({ path: '/good' })).response?.status).toBe(200);
    // Every attempt of /bad, then /good: three resets in a row did not make the client give up.
    expect(hits).toBe(DEFAULTS.retries + 1 + 1);
  });
});

describe('the pace', () => {
  it('--rate-limit 4/s: no one-second window holds more than four starts', async () => {
    const arrivals: number[] = [];
    const server = await serve((_req, res) => {
      arrivals.push(performance.now());
      ok(res);
    });
    const client = await clientOf(server.baseUrl, { rateLimit: { requests: 4, perMs: 1_000 } });
    await Promise.all(Array.from({ length: 10 }, (_, i) => client.send({ path: `/p${i}` })));
    const starts = client.exchanges.map((e) => e.startedAt ?? 0);
    expect(busiestSecond(starts)).toBeLessThanOrEqual(4);
    // As they arrive, the same spread: the server (in this busy process) reads them late and in bunches.
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeGreaterThanOrEqual(1_900);
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThanOrEqual(1_990);
    expect(client.requestsOf(100).rateLimit).toEqual({ asked: '4/s', throttled: 0 });
  });

  it('--rate-limit 120/min spreads the minute: two starts in any second', async () => {
    const server = await serve((_req, res) => ok(res));
    const client = await clientOf(server.baseUrl, { rateLimit: { requests: 120, perMs: 60_000 } });
    await Promise.all(Array.from({ length: 5 }, (_, i) => client.send({ path: `/p${i}` })));
    expect(busiestSecond(client.exchanges.map((e) => e.startedAt ?? 0))).toBeLessThanOrEqual(2);
  });

  it('learns a per-key limit from its 429s and keeps to it: after the first burst, next to no 429', async () => {
    const origin = await serve((_req, res) => ok(res));
    const limited = await startRateLimitedProxy(origin.baseUrl, 10);
    opened.push(limited);
    const client = await clientOf(limited.url, { concurrency: 4 });
    const auth = { key: 'CONFORMANCE_API_KEY', via: 'bearer' } as const;
    const finals = await Promise.all(
      Array.from({ length: 40 }, (_, i) => client.send({ path: `/p${i}`, auth })),
    );
    expect(finals.every((e) => e.response?.status === 200)).toBe(true);
    const pace = client.requestsOf(1_000).rateLimit;
    expect(pace?.learntPerSecond).toBeLessThanOrEqual(10);
    // After that the client keeps to the rate: the last half of the requests sees next to no 429.
    // A limit is learnt once its refusals lie above four acceptances and requests refused together
    // count once: a few bursts of the requests in flight meet it first.
    expect(pace?.throttled).toBeLessThanOrEqual(20);
    expect(limited.arrivals.slice(-20).filter((a) => a.status === 429).length).toBeLessThanOrEqual(2);
    expect(limited.arrivals.filter((a) => a.status === 429)).toHaveLength(pace?.throttled ?? -1);
    const accepted = limited.arrivals.filter((a) => a.status === 200).map((a) => a.at);
    expect(busiestSecond(accepted)).toBeLessThanOrEqual(10);
  }, 30_000);

  it('a key new to the run starts at the pace another key taught, not with a burst of refusals', async () => {
    const origin = await serve((_req, res) => ok(res));
    const limited = await startRateLimitedProxy(origin.baseUrl, 10);
    opened.push(limited);
    const client = new HttpClient(
      configFor(
        limited.url,
        { CONFORMANCE_API_KEY: KEY, CONFORMANCE_OTHER_CAMPAIGN_KEY: `${KEY}2` },
        { concurrency: 4 },
      ),
    );
    opened.push(client);
    const send = (key: KeyName, n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          client.send({ path: `/${key}/${i}`, auth: { key, via: 'bearer' } }),
        ),
      );
    await send('CONFORMANCE_API_KEY', 60);
    const first = limited.arrivals.filter((a) => a.status === 429).length;
    expect(first).toBeGreaterThan(0);
    expect(client.requestsOf(1_000).rateLimit?.learntPerSecond).toBeDefined();
    await send('CONFORMANCE_OTHER_CAMPAIGN_KEY', 30);
    const second = limited.arrivals.filter((a) => a.status === 429).length - first;
    expect(second).toBe(0);
  }, 30_000);

  it('a key out of its place counts with the requests that carry none: a limit may not read it there', async () => {
    const origin = await serve((_req, res) => ok(res));
    const limited = await startRateLimitedProxy(origin.baseUrl, 10);
    opened.push(limited);
    const client = await clientOf(limited.url, { concurrency: 4 });
    const keyless = Array.from({ length: 60 }, (_, i) => client.send({ path: `/none/${i}` }));
    await Promise.all(keyless);
    const before = limited.arrivals.filter((a) => a.status === 429).length;
    expect(before).toBeGreaterThan(0);
    expect(client.requestsOf(1_000).rateLimit?.learntPerSecond).toBeDefined();
    // In a cookie, the proxy (reading Authorization and X-API-Key only) counts it as keyless.
    const auth = {
      key: 'CONFORMANCE_API_KEY',
      via: 'bearer',
      placed: { in: 'cookie', name: 'api_key' },
    } as const;
    await Promise.all(Array.from({ length: 30 }, (_, i) => client.send({ path: `/cookie/${i}`, auth })));
    expect(limited.arrivals.filter((a) => a.status === 429).length - before).toBe(0);
  }, 30_000);
});

describe('every attempt is shown', () => {
  it('in the HAR, the JSON report, its coverage and the console line', async () => {
    const reference = await startReferenceServer({ log: false });
    opened.push(reference);
    let refused = false;
    const front = await serve((req, res) => {
      if (!refused && req.url === '/api/v1/walks') {
        refused = true;
        res
          .writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' })
          .end('{"ok":false,"error":{"code":"rate_limited","message":"Slow down."}}');
        return;
      }
      const out = httpRequest(`${reference.baseUrl}${req.url}`, { headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(out);
    });
    const dir = mkdtempSync(join(tmpdir(), 'conformance-attempts-'));
    opened.push({ close: async () => rmSync(dir, { recursive: true, force: true }) });
    const [har, json] = [join(dir, 'run.har'), join(dir, 'run.json')];
    const { CONFORMANCE_WEB_BASE_URL: _web, ...keys } = reference.credentials;
    const run = await runCli(
      [
        '--base-url',
        front.baseUrl,
        '--only',
        'COLLECTION-001',
        '--har',
        har,
        '--reporter',
        'json',
        '--output',
        json,
      ],
      keys,
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('1 retried: 1 after a 429');
    const entries = (JSON.parse(readFileSync(har, 'utf8')) as Har).log.entries;
    expect(entries[0]).toMatchObject({
      response: { status: 429 },
      _retriedAs: entries[1]?._seq,
      _retriedFor: '429',
    });
    expect(entries[1]?.response.status).toBe(200);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.requests).toMatchObject({ sent: entries.length, retried: { '429': 1 } });
    const list = report.coverage?.operations.find((o) => o.operationId === 'listWalks');
    expect(list?.statuses.find((s) => s.status === '429')?.observed).toBe(1);
  });
});
