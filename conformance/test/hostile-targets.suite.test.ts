/**
 * The whole command line against hostile targets: a target that never answers, answers
 * too slowly, answers HTML or invalid JSON, sends 50 MB, redirects forever or to another origin,
 * closes mid-answer, echoes the keys back, or is not there at all. Each run ends, in bounded time,
 * with failed checks that say what happened and the contract's exit status — and no key, whole or
 * in part, in the console output, the JSON, JUnit and HTML reports, the HAR, their error messages
 * or their curl reproductions.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KEY_PREFIX as PREFIX, WEB_BASE_URL_NAME, CREDENTIAL_KEY_NAMES } from '../../spec/facts.ts';
import { main } from '../cli/cli.ts';
import type { Report } from '../core/report-model.ts';
import { pourBytes } from './harness.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';

/** Fresh secrets per run, mixed-case so that an 8-character piece of one is never there by chance. */
const KEYS = Object.fromEntries(
  CREDENTIAL_KEY_NAMES.map((name) => [
    name,
    `${PREFIX}${randomBytes(36).toString('base64').replace(/[+/=]/g, 'x')}`,
  ]),
) as Record<(typeof CREDENTIAL_KEY_NAMES)[number], string>;
const ENV = { ...KEYS, [WEB_BASE_URL_NAME]: 'https://dashboard.example' };
/** The request timeout of the cases about targets that never finish; the others keep the default. */
const TIMEOUT_MS = 500;
const SIZE_CAP = 64 * 1024;
/** No run may take longer than this; a hang fails the test instead of stalling the suite. */
const RUN_BOUND_MS = 60_000;

let dir: string;
let runs = 0;
const opened: Listening[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hostile-targets-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(opened.splice(0).map((listening) => listening.close()));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const listening = await listen(handler);
  opened.push(listening);
  return listening.baseUrl;
}

interface Run {
  status: number;
  stdout: string;
  stderr: string;
  json: string;
  junit: string;
  html: string;
  har: string;
  report: Report | undefined;
}

/** `npm run conformance` in-process with every output on: console, JSON, JUnit, HTML and HAR files. */
async function conformance(baseUrl: string, timeoutMs?: number): Promise<Run> {
  const n = ++runs;
  const json = join(dir, `run-${n}.json`);
  const junit = join(dir, `run-${n}.junit.xml`);
  const html = join(dir, `run-${n}.html`);
  const har = join(dir, `run-${n}.har`);
  const argv = [
    ...['--base-url', baseUrl, '--max-response-bytes', String(SIZE_CAP)],
    ...(timeoutMs === undefined ? [] : ['--timeout', String(timeoutMs)]),
    ...['--max-retry-wait', '0', '--reporter', 'json,junit,html', '--output', json, '--output', junit],
    ...['--output', html, '--har', har],
  ];
  let stdout = '';
  let stderr = '';
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the run did not end within ${RUN_BOUND_MS} ms`)),
      RUN_BOUND_MS,
    );
  });
  try {
    const status = await Promise.race([
      main(argv, ENV, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) }),
      bound,
    ]);
    const read = (path: string) => readFile(path, 'utf8').catch(() => '');
    const jsonText = await read(json);
    return {
      status,
      stdout,
      stderr,
      json: jsonText,
      junit: await read(junit),
      html: await read(html),
      har: await read(har),
      report: jsonText ? (JSON.parse(jsonText) as Report) : undefined,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** No key in any output: not whole, not URL- or base64-encoded, not an 8-character piece of its body. */
function expectNoKeyAnywhere(run: Run): void {
  const outputs = {
    stdout: run.stdout,
    stderr: run.stderr,
    json: run.json,
    junit: run.junit,
    html: run.html,
    har: run.har,
  };
  for (const [name, key] of Object.entries(KEYS)) {
    const body = key.slice(PREFIX.length);
    const forms = [
      key,
      encodeURIComponent(key),
      Buffer.from(key).toString('base64'),
      Buffer.from(`Bearer ${key}`).toString('base64'),
    ];
    for (let i = 0; i + 8 <= body.length; i++) forms.push(body.slice(i, i + 8));
    for (const [output, text] of Object.entries(outputs)) {
      const leaked = forms.filter((form) => text.includes(form));
      expect([name, output, leaked]).toEqual([name, output, []]);
    }
  }
}

/** A reachable but broken target: exit 1, the rule it broke explaining itself, no stack trace. */
function expectCleanFailure(run: Run, rule: string, why: RegExp): Report {
  expect(run.status).toBe(1);
  const report = run.report;
  if (!report) throw new Error(`no JSON report; stderr: ${run.stderr}`);
  expect(report.summary.verdict).toBe('fail');
  expect(report.unreachable).toBeUndefined();
  const broken = report.results.find((result) => result.id === rule);
  expect(broken?.status).toBe('fail');
  expect(broken?.actual).toMatch(why);
  expectCleanReports(run, report, rule, '<failure');
  return report;
}

/**
 * A reachable target whose answers never come whole: exit 2, the rules that needed them not judged
 * with the cause, the one line that says what to do, no stack trace.
 */
function expectNotJudged(run: Run, why: RegExp): Report {
  expect(run.status).toBe(2);
  const report = run.report;
  if (!report) throw new Error(`no JSON report; stderr: ${run.stderr}`);
  expect(report.summary.verdict).toBe('not judged');
  expect(report.unreachable).toBeUndefined();
  expect(report.results.filter((result) => result.status === 'fail')).toEqual([]);
  const list = report.results.find((result) => result.id === 'COLLECTION-001');
  expect(list?.status).toBe('not-judged');
  expect(list?.reason).toMatch(why);
  expect(run.stderr).toMatch(/required rule\(s\) not judged/);
  expectCleanReports(run, report, 'COLLECTION-001', '<error');
  return report;
}

/** Every output explains itself without a stack trace, the HAR holds the run, and no key is anywhere. */
function expectCleanReports(run: Run, report: Report, rule: string, junitElement: string): void {
  for (const text of [run.stdout, run.stderr, run.json, run.junit, run.html]) {
    expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
  }
  expect(run.html).toContain(rule);
  expect(run.junit).toMatch(new RegExp(`${junitElement}|<skipped`));
  expect((JSON.parse(run.har) as { log: { entries: unknown[] } }).log.entries.length).toBeGreaterThan(0);
  // Requests that carried a key reproduce with the variable, never the value.
  const curls = report.results.flatMap((result) => (result.request ? [result.request.curl] : []));
  expect(curls.some((curl) => curl.includes('$CONFORMANCE_API_KEY'))).toBe(true);
  expectNoKeyAnywhere(run);
}

/**
 * A target the pre-flight stops before any check: exit 2, one or two lines saying why,
 * the reports saying so, its requests in the HAR, and no key anywhere.
 */
function expectStopped(run: Run, reason: RegExp): Report {
  expect(run.status).toBe(2);
  expect(run.stderr).toMatch(reason);
  expect(run.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
  const report = run.report;
  if (!report) throw new Error(`no JSON report; stderr: ${run.stderr}`);
  expect(report.unreachable).toMatch(reason);
  expect(report.results).toEqual([]);
  expect((JSON.parse(run.har) as { log: { entries: unknown[] } }).log.entries.length).toBe(
    report.requests.sent,
  );
  expectNoKeyAnywhere(run);
  return report;
}

/** Timers a hostile handler left running are cleared when its connection closes. */
function onClose(res: ServerResponse, stop: () => void): void {
  res.on('close', stop);
}

describe('the conformance command line against hostile targets', () => {
  it('a target that never answers: stopped by the pre-flight after one request, exit 2', async () => {
    const run = await conformance(await serve(() => undefined), TIMEOUT_MS);
    const report = expectStopped(run, new RegExp(`no answer within ${TIMEOUT_MS} ms`));
    expect(report.requests.sent).toBe(1);
  });

  it('a target that answers after the timeout: the same', async () => {
    const url = await serve((_req, res) => {
      const timer = setTimeout(() => res.end('{"ok":true,"data":[],"meta":{"count":0}}'), TIMEOUT_MS * 4);
      onClose(res, () => clearTimeout(timer));
    });
    expectStopped(await conformance(url, TIMEOUT_MS), /no answer within/);
  });

  it('a target that drips its answer: cut at the timeout', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ok":true,"data":[');
      const timer = setInterval(() => res.write(' '), 50);
      onClose(res, () => clearInterval(timer));
    });
    expectStopped(await conformance(url, TIMEOUT_MS), /no answer within/);
  });

  it('a target that answers HTML: stopped by the pre-flight quoting the content type, exit 2', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Login</title><form action="/login"><input name="password"></form>');
    });
    expectStopped(await conformance(url), /answered 200 text\/html, not JSON/);
  });

  it('a target that answers invalid JSON: the rule about every answer fails, saying it is not JSON', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true,"data":[{"id":');
    });
    expectCleanFailure(await conformance(url), 'ENVELOPE-004', /not JSON/);
  });

  it('a target that sends 50 MB: the client stops reading at the cap instead of buffering it, exit 2 (not judged)', async () => {
    const written: number[] = [];
    const url = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Node sends no body on HEAD (its writes succeed without a byte on the wire): nothing to count.
      if (req.method === 'HEAD') return void res.end();
      const sent = pourBytes(res, 50 * 1024 * 1024);
      onClose(res, () => written.push(sent()));
    });
    // Larger than the cap is not judged: exit 2, naming the answer and the flag.
    const run = await conformance(url);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`exceeded ${SIZE_CAP} bytes and was cut off`));
    expect(run.stderr).toContain('Raise --max-response-bytes to judge it.');
    expect(run.report?.overCap?.length).toBeGreaterThan(0);
    expect(written.length).toBeGreaterThan(0);
    // What the server managed to push before the client hung up: socket buffers, not 50 MB.
    expect(Math.max(...written)).toBeLessThan(16 * 1024 * 1024);
  });

  it('a target that floods the answer with headers: refused by the client, not buffered, not judged', async () => {
    const url = await serve((_req, res) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      for (let i = 0; i < 400; i++) headers[`x-flood-${i}`] = 'f'.repeat(1_000);
      res.writeHead(200, headers);
      res.end('{"ok":true,"data":[],"meta":{"count":0}}');
    });
    expectNotJudged(
      await conformance(url),
      /headers exceeded the client's limit and were refused|stopped answering/,
    );
  });

  it('an endless redirect chain: one request per redirect, never followed, stopped by the pre-flight', async () => {
    let hits = 0;
    const url = await serve((req, res) => {
      hits++;
      res.writeHead(307, { location: `${req.url}${req.url?.includes('?') ? '&' : '?'}again=${hits}` });
      res.end();
    });
    const run = await conformance(url);
    const report = expectStopped(run, /answered 307, a redirect/);
    expect(hits).toBe(report.requests.sent);
  });

  it('a redirect to another origin: the other origin never sees a request, let alone a key', async () => {
    const seen: IncomingMessage['headers'][] = [];
    const elsewhere = await serve((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true,"data":[],"meta":{"count":0}}');
    });
    const url = await serve((req, res) => {
      res.writeHead(req.url?.includes('limit') ? 308 : 302, { location: `${elsewhere}${req.url}` });
      res.end();
    });
    expectStopped(await conformance(url), /answered 30[28], a redirect/);
    const keysSeen = JSON.stringify(seen);
    for (const key of Object.values(KEYS)) expect(keysSeen.includes(key.slice(PREFIX.length))).toBe(false);
    expect(seen).toEqual([]);
  });

  it('a target that closes the connection mid-answer: not judged, saying so', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' });
      res.write('{"ok":true,"data":[{"id":"');
      setImmediate(() => res.socket?.destroy());
    });
    const run = await conformance(url);
    expectNotJudged(
      run,
      /closed before a complete answer|arrived cut|target stopped answering|not valid HTTP/,
    );
    // A target that cuts every answer answers nothing: the client says so, and what it saw.
    expect(run.stderr).toMatch(
      /the answer was cut: status 200 declared Content-Length: 5000.*answered nothing whole/,
    );
  });

  it('a target that echoes the keys back, cut where the reports shorten bodies: no piece of a key gets out', async () => {
    const url = await serve((req, res) => {
      const sent = String(req.headers['x-api-key'] ?? req.headers.authorization ?? 'none').replace(
        /^bearer +/i,
        '',
      );
      // The key placed across the 60-, 160- and 500-character marks where texts get shortened.
      const body = `${'#'.repeat(30)}${sent}${'#'.repeat(70)}${sent}${'#'.repeat(290)}${sent}${'#'.repeat(40)}`;
      // 200 on the plain list and limit=1, so the pre-flight lets the checks (and their reports) see it.
      res.writeHead(/limit=1|walks$/.test(req.url ?? '') ? 200 : 401, {
        'content-type': 'application/json',
        'x-echo': sent,
        location: `https://elsewhere.example/?key=${sent}`,
      });
      res.end(body);
    });
    expectCleanFailure(await conformance(url), 'AUTH-017', /repeat \$CONFORMANCE_/);
  });

  it('nothing listening at the address: exit 2, unreachable, no checks run', async () => {
    const gone = await listen(() => undefined);
    await gone.close();
    const run = await conformance(gone.baseUrl);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/cannot be reached: connection refused/);
    expect(run.report?.unreachable).toMatch(/cannot be reached/);
    expect(run.report?.results).toEqual([]);
    expectNoKeyAnywhere(run);
  });
});
