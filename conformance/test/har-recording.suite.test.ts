/**
 * `--har FILE`: the run's traffic as HAR 1.2, one entry per request sent, with no key anywhere —
 * not in the headers, not in a URL whose path carries the key, not in the answers of a target that
 * echoes every key it gets — and still replayable once the key variables are set.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/cli.ts';
import type { Har, HarEntry } from '../reporters/har.ts';
import type { Report } from '../core/report-model.ts';
import type { DriftServer } from './drift-server.ts';
import { startDriftServer } from './drift-server.ts';
import { listen } from '../../tools/test-support/listen.ts';

let dir: string;
let server: DriftServer;
let har: Har;
let text: string;
let report: Report;
let status: number;

async function cli(argv: string[]): Promise<number> {
  return main(argv, { ...server.credentials }, { stdout: () => undefined, stderr: () => undefined });
}

const keys = () =>
  Object.entries(server.credentials).filter(([name]) => name !== 'CONFORMANCE_WEB_BASE_URL') as [
    string,
    string,
  ][];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'conformance-har-'));
  server = await startDriftServer();
  // The base URL's path carries the primary key, and the target echoes every key it is sent.
  const baseUrl = server.urlOf({ echoKeys: true }, server.credentials.CONFORMANCE_API_KEY);
  status = await cli([
    '--base-url',
    baseUrl,
    '--reporter',
    'json',
    '--output',
    join(dir, 'r.json'),
    '--har',
    join(dir, 'r.har'),
  ]);
  text = readFileSync(join(dir, 'r.har'), 'utf8');
  har = JSON.parse(text) as Har;
  report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as Report;
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

/** The fields HAR 1.2 requires of an entry, its request and its response. */
function expectHarEntry(entry: HarEntry): void {
  expect(Number.isNaN(Date.parse(entry.startedDateTime))).toBe(false);
  // HAR 1.2: `time` is the sum of the timings that are not -1.
  const { send, wait, receive } = entry.timings;
  expect(Number.isInteger(entry.time)).toBe(true);
  expect(send + wait + receive).toBe(entry.time);
  expect(entry.cache).toEqual({});
  const { request, response } = entry;
  expect(request).toMatchObject({ httpVersion: 'HTTP/1.1', cookies: [], headersSize: -1 });
  expect(typeof request.method).toBe('string');
  expect(() => new URL(request.url)).not.toThrow();
  expect(Array.isArray(request.headers) && Array.isArray(request.queryString)).toBe(true);
  expect(request.bodySize).toBe(request.postData ? Buffer.byteLength(request.postData.text) : 0);
  expect(response).toMatchObject({ httpVersion: 'HTTP/1.1', cookies: [], headersSize: -1 });
  expect(typeof response.status).toBe('number');
  expect(typeof response.statusText).toBe('string');
  expect(typeof response.redirectURL).toBe('string');
  expect(typeof response.content.mimeType).toBe('string');
  expect(response.content.size).toBe(response.bodySize);
}

describe('--har', () => {
  it('writes HAR 1.2 with an entry per request the run sent', () => {
    // The target echoes every key it is sent: AUTH-017 (no key echoed) fails it, and nothing else does.
    expect(status).toBe(1);
    expect(report.results.filter((r) => r.status === 'fail').map((r) => r.id)).toEqual(['AUTH-017']);
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator).toEqual({ name: report.tool.name, version: report.tool.version });
    expect(har.log.entries.length).toBeGreaterThan(20);
    expect(har.log.entries).toHaveLength(report.requests.sent);
    for (const entry of har.log.entries) expectHarEntry(entry);
    const post = har.log.entries.find((e) => e.request.method === 'POST');
    expect(post?.request.postData).toEqual({ mimeType: 'application/json', text: '{}' });
    expect(post?.request.bodySize).toBe(2);
    expect(har.log.entries.some((e) => e.request.method === 'HEAD')).toBe(true);
  });

  it('contains no key in any form, whatever the target echoed', () => {
    for (const [name, value] of keys()) {
      for (const form of [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]) {
        expect(text.includes(form), `${name} appears in the HAR`).toBe(false);
      }
    }
    // the per-run made-up key, echoed back in 401 messages and headers, is replaced as well
    expect(text).not.toMatch(/svc_sk_live_(?!\[redacted\])[A-Za-z0-9_-]{6,}/);
    expect(text).toContain('The key svc_sk_live_[redacted] is not valid.');
  });

  it('names the keys instead, in the headers, the URL and the echoed answers', () => {
    const first = har.log.entries[0];
    expect(first?.request.url).toContain('/$CONFORMANCE_API_KEY/api/v1/walks');
    expect(first?.request.headers).toContainEqual({
      name: 'Authorization',
      value: 'Bearer $CONFORMANCE_API_KEY',
    });
    expect(first?.response.headers).toContainEqual({ name: 'x-echo-key', value: '$CONFORMANCE_API_KEY' });
    expect(text).toContain('The key $CONFORMANCE_REVOKED_KEY is not valid.');
  });

  it('can be replayed once the key variables are set', async () => {
    const entry = har.log.entries.find((e) => e.request.method === 'GET' && e.response.status === 200);
    if (!entry) throw new Error('no answered GET in the HAR');
    const fill = (value: string) =>
      keys().reduce((out, [name, key]) => out.replaceAll(`$${name}`, key), value);
    const headers = Object.fromEntries(entry.request.headers.map((h) => [h.name, fill(h.value)]));
    const replayed = await fetch(fill(entry.request.url), { headers });
    expect(replayed.status).toBe(entry.response.status);
    expect(await replayed.text()).toBe(
      entry.response.content.text?.replaceAll('$CONFORMANCE_API_KEY', server.credentials.CONFORMANCE_API_KEY),
    );
  });

  it('counts only requests sent when the budget runs out', async () => {
    const file = join(dir, 'budget.har');
    const json = join(dir, 'budget.json');
    await cli([
      '--base-url',
      server.urlOf({}),
      '--max-requests',
      '7',
      '--reporter',
      'json',
      '--output',
      json,
      '--har',
      file,
    ]);
    const budget = JSON.parse(readFileSync(file, 'utf8')) as Har;
    const budgetReport = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(budgetReport.requests.sent).toBe(7);
    expect(budget.log.entries).toHaveLength(7);
  });

  it('records a request that got no answer as status 0 with the reason', async () => {
    const gone = await listen(() => undefined);
    await gone.close();
    const file = join(dir, 'gone.har');
    expect(await cli(['--base-url', gone.baseUrl, '--har', file])).toBe(2);
    const entries = (JSON.parse(readFileSync(file, 'utf8')) as Har).log.entries;
    expect(entries).toHaveLength(1);
    expect(entries[0]?.response.status).toBe(0);
    expect(entries[0]?.response._error).toMatch(/^refused: connection refused/);
    expectHarEntry(entries[0] as HarEntry);
  });
});
