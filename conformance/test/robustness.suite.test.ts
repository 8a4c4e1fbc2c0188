/**
 * Hostile targets: the suite turns every kind of broken answer into a clear verdict, in a bounded
 * run, and never crashes, hangs or prints a stack trace. An answer that came back and breaks a rule
 * fails it (once: an HTML page or a body that is not JSON fails the rule about every answer, and
 * the rules that needed the answer are left unjudged); answers that never came leave the run not
 * judged, with the cause.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../cli/config.ts';
import { runSuite } from '../run/runner.ts';
import type { Report } from '../core/report-model.ts';
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

/** Nothing failed, the rules that needed answers say why they got none; no stack trace anywhere. */
function expectNotJudged(report: Report, pattern: RegExp): void {
  expect(report.summary.verdict).toBe('not judged');
  expect(report.unreachable).toBeUndefined();
  expect(requiredFailures(report)).toEqual([]);
  const list = resultOf(report, 'COLLECTION-001');
  expect(list.status).toBe('not-judged');
  expect(list.reason).toMatch(pattern);
  expect(report.notJudged).toMatch(/required rule\(s\) not judged/);
  for (const r of report.results) expect(r.actual).not.toMatch(/\n\s+at /);
}

/** One rule failed, naming the answer; the rules that needed that answer are unjudged, not failed. */
function expectOneFailure(report: Report, id: string, pattern: RegExp): void {
  expect(report.summary.verdict).toBe('fail');
  expect(report.unreachable).toBeUndefined();
  expect(requiredFailures(report).map((line) => line.split(':')[0])).toEqual([id]);
  expect(resultOf(report, id).actual).toMatch(pattern);
  expect(resultOf(report, 'COLLECTION-001').status).toBe('not-judged');
  for (const r of report.results) expect(r.actual).not.toMatch(/\n\s+at /);
}

describe('hostile targets', () => {
  it('is not judged, in a bounded run, against a target that never answers', async () => {
    const url = await serve(() => undefined);
    const report = await run(url, FAST_TIMEOUT);
    expectNotJudged(report, /no complete answer within the timeout|the target stopped answering/);
    // The first request, one round of the concurrency, then the client gives up.
    expect(report.requests.sent).toBeLessThanOrEqual(2 + DEFAULTS.concurrency);
    expect(resultOf(report, 'AUTH-003').reason).toMatch(/target stopped answering|no complete answer/);
  });

  it('is not judged against a target that drips its body too slowly', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    expectNotJudged(await run(url, FAST_TIMEOUT), /no complete answer within the timeout/);
  });

  it('fails against a target that answers HTML', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><body>Welcome to nginx!</body></html>');
    });
    const report = await run(url);
    expectOneFailure(report, 'ENVELOPE-011', /an HTML page: 200 \(text\/html\) <!doctype html>/);
  });

  it('fails against a target that answers invalid JSON', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true,"data":[');
    });
    const report = await run(url);
    // The rule about every answer fails it once; rules about what a request's status must be (a
    // write refused, an unknown id not found) still judge that status, and fail on its 200 too.
    expect(report.summary.verdict).toBe('fail');
    expect(resultOf(report, 'ENVELOPE-004').actual).toMatch(/not JSON/);
    expect(resultOf(report, 'COLLECTION-001').status).toBe('not-judged');
    for (const r of report.results) expect(r.actual).not.toMatch(/\n\s+at /);
  });

  it('is not judged against a target that answers garbage instead of HTTP', async () => {
    const server = createServer((socket) => {
      socket.on('data', () => socket.end('\u0000\u0001 this is not HTTP at all\r\n\r\n'));
      socket.on('error', () => undefined);
    });
    const listening = await listen(server);
    opened.push(listening);
    expectNotJudged(
      await run(listening.baseUrl),
      /not valid HTTP|closed before a complete answer|stopped answering/,
    );
  });

  it('is not judged against a target that closes the connection', async () => {
    const url = await serve((req) => req.socket.destroy());
    expectNotJudged(await run(url), /closed before a complete answer|target stopped answering/);
  });

  it('cuts off a 50 MB answer at the size cap, and judges nothing it cut', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      pourBytes(res, 50 * 1024 * 1024);
    });
    const report = await run(url);
    // Larger than --max-response-bytes is not a deployment fault: not judged, and named in the report.
    expect(requiredFailures(report)).toEqual([]);
    expect(resultOf(report, 'COLLECTION-001').status).toBe('not-judged');
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
    expect(report.summary.verdict).toBe('fail');
    expect(resultOf(report, 'COLLECTION-001').actual).toMatch(/answered 302/);
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
    expect(report.summary.verdict).toBe('fail');
    expect(resultOf(report, 'COLLECTION-001').actual).toMatch(/answered 301/);
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
