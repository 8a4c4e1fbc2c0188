/**
 * Hostile targets: the suite turns every kind of broken answer into failed checks with a clear
 * message, in a bounded run, and never crashes, hangs or prints a stack trace.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../config.ts';
import { runSuite } from '../runner.ts';
import type { Report } from '../types.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';
import { configFor, pourBytes, requiredFailures, resultOf } from './harness.ts';

const KEYS = { CONFORMANCE_API_KEY: 'svc_sk_live_hostiletargettestkey000000000001' };
const opened: Listening[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((l) => l.close()));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const listening = await listen(handler);
  opened.push(listening);
  return listening.baseUrl;
}

/**
 * The default request timeout, so a slow machine cannot turn an expected failure into a timeout;
 * the cases about targets that never finish pass a short one (`FAST_TIMEOUT`).
 */
function run(baseUrl: string, overrides = {}): Promise<Report> {
  return runSuite(configFor(baseUrl, KEYS, { maxResponseBytes: 64 * 1024, ...overrides }));
}

const FAST_TIMEOUT = { timeoutMs: 400 };

/** Every failure explains itself; none carries a stack trace. */
function expectCleanFailures(report: Report, pattern: RegExp): void {
  expect(report.summary.verdict).toBe('fail');
  expect(report.unreachable).toBeUndefined();
  const list = resultOf(report, 'WALKS-LIST-001');
  expect(list.status).toBe('fail');
  expect(list.actual).toMatch(pattern);
  for (const r of report.results) expect(r.actual).not.toMatch(/\n\s+at /);
}

describe('hostile targets', () => {
  it('fails, in a bounded run, against a target that never answers', async () => {
    const url = await serve(() => undefined);
    const report = await run(url, FAST_TIMEOUT);
    expectCleanFailures(report, /no complete answer within 400 ms/);
    // The first request, one round of the concurrency, then the client gives up.
    expect(report.requests.sent).toBeLessThanOrEqual(2 + DEFAULTS.concurrency);
    expect(resultOf(report, 'AUTH-003').actual).toMatch(/target stopped answering|no complete answer/);
  });

  it('fails against a target that drips its body too slowly', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    expectCleanFailures(await run(url, FAST_TIMEOUT), /no complete answer within 400 ms/);
  });

  it('fails against a target that answers HTML', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><body>Welcome to nginx!</body></html>');
    });
    const report = await run(url);
    expectCleanFailures(report, /200 \(text\/html\) <!doctype html>/);
    expect(resultOf(report, 'ENVELOPE-004').actual).toMatch(/content type text\/html, not JSON/);
  });

  it('fails against a target that answers invalid JSON', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true,"data":[');
    });
    const report = await run(url);
    expectCleanFailures(report, /answered 200/);
    expect(resultOf(report, 'ENVELOPE-004').actual).toMatch(/not JSON/);
  });

  it('fails against a target that answers garbage instead of HTTP', async () => {
    const server = createServer((socket) => {
      socket.on('data', () => socket.end('\u0000\u0001 this is not HTTP at all\r\n\r\n'));
      socket.on('error', () => undefined);
    });
    const listening = await listen(server);
    opened.push(listening);
    expectCleanFailures(await run(listening.baseUrl), /not valid HTTP|closed before a complete answer/);
  });

  it('fails against a target that closes the connection', async () => {
    const url = await serve((req) => req.socket.destroy());
    expectCleanFailures(await run(url), /closed before a complete answer|target stopped answering/);
  });

  it('cuts off a 50 MB answer at the size cap, and judges nothing it cut', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      pourBytes(res, 50 * 1024 * 1024);
    });
    const report = await run(url);
    // Larger than --max-response-bytes is not a deployment fault: not judged, and named in the report.
    expect(requiredFailures(report)).toEqual([]);
    expect(resultOf(report, 'WALKS-LIST-001').status).toBe('inconclusive');
    expect(report.overCap?.[0]).toMatch(/exceeded 65536 bytes and was cut off \(--max-response-bytes\)/);
  });

  it('never follows a redirect, so the key never reaches another origin', async () => {
    const seen: IncomingMessage['headers'][] = [];
    const elsewhere = await serve((req, res) => {
      seen.push(req.headers);
      res.end('{}');
    });
    const url = await serve((req, res) => {
      res.writeHead(302, { location: `${elsewhere}${req.url}`, 'content-type': 'text/html' });
      res.end('<a href="elsewhere">moved</a>');
    });
    const report = await run(url);
    expectCleanFailures(report, /answered 302/);
    expect(seen).toEqual([]);
  });

  it('sends one request per redirect of an endless chain, never following it', async () => {
    let hits = 0;
    const url = await serve((req, res) => {
      hits++;
      res.writeHead(301, { location: req.url ?? '/' });
      res.end();
    });
    const report = await run(url);
    expectCleanFailures(report, /answered 301/);
    expect(hits).toBe(report.requests.sent);
  });

  it('reports a target nobody listens on as unreachable', async () => {
    const listening = await listen(() => undefined);
    await listening.close();
    const report = await run(listening.baseUrl);
    expect(report.unreachable).toMatch(/cannot be reached: connection refused/);
    expect(report.results).toEqual([]);
  });
});
