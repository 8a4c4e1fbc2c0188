/**
 * The mock keeps what a schema can say, in static and in dynamic mode (`Prefer: dynamic=true`):
 * every body is valid against the contract; `web_url` and `app_link` parse with WHATWG's `new URL()`
 * and Python's `urllib.parse.urlsplit` (its `.port` included) and hold the documented shape with
 * the summary's own id; ids are UUIDs; stop positions run 1..n; counts add up and a page's count is
 * small. Dynamic mode draws the walks from the schemas' own `examples` (`x-json-schema-faker:
 * useExamplesValue` in the spec) and invents no extra property (`--json-schema-faker-fillProperties=false`).
 */
import { spawnSync } from 'node:child_process';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContractValidator } from '../../spec/contract.ts';
import { KEY_PREFIX, LIMIT } from '../../spec/facts.ts';
import type { WalkDetail, WalkSummary } from '../../spec/types.ts';
import { freePort } from '../../command-line/free-port.ts';
import { type RunningPrism, startPrism } from '../prism.ts';

const validator = createContractValidator();
/** Draws per endpoint and mode: each dynamic draw picks anew, so a bad value shows up. */
const DRAWS = 12;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MODES = [
  ['static', {}],
  ['dynamic', { prefer: 'dynamic=true' }],
] as const;
let prism: RunningPrism;

beforeAll(async () => {
  prism = await startPrism({ port: await freePort() });
});

afterAll(async () => {
  await prism?.stop();
});

async function draws(path: string, headers: Record<string, string>): Promise<string[]> {
  const texts: string[] = [];
  for (let draw = 0; draw < DRAWS; draw++) {
    const response = await request(`${prism.baseUrl}${path}`, {
      headers: { 'x-api-key': `${KEY_PREFIX}dynamicmodekey`, ...headers },
    });
    const text = await response.body.text();
    expect(response.statusCode, text).toBe(200);
    texts.push(text);
  }
  return texts;
}

/** What Python's `urlsplit` makes of each URL: host and port, or the error it raises. */
function pythonSplits(urls: string[]): string[] {
  const script = [
    'import json, sys',
    'from urllib.parse import urlsplit',
    'for url in json.load(sys.stdin):',
    '    try:',
    '        parts = urlsplit(url)',
    '        print(f"{parts.scheme} {parts.hostname} {parts.port} {parts.path}")',
    '    except ValueError as error:',
    '        print(f"error {error}")',
  ].join('\n');
  const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(urls), encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim().split('\n');
}

function linkProblems(walk: WalkSummary): string[] {
  const problems: string[] = [];
  for (const [field, segment] of [
    ['web_url', 'dashboard'],
    ['app_link', 'open'],
  ] as const) {
    const url = new URL(walk[field]); // throws on what a browser would refuse
    const shape = new RegExp(`/${segment}/[^/]+/walks/${walk.id}$`);
    if (!shape.test(url.pathname))
      problems.push(`${field} ${walk[field]} is not …/${segment}/<slug>/walks/<id>`);
    if (!['http:', 'https:'].includes(url.protocol)) problems.push(`${field} ${walk[field]} is not http(s)`);
  }
  return problems;
}

describe.each(MODES)('the mock in %s mode', { timeout: 60_000 }, (_mode, headers) => {
  it('lists walks valid against the contract whose links parse and name their own id', async () => {
    const urls: string[] = [];
    for (const text of await draws('/api/v1/walks', headers)) {
      const body = JSON.parse(text) as { data: WalkSummary[]; meta: { count: number } };
      expect(validator.validateResponse('listWalks', 200, body).errors).toEqual([]);
      expect(body.meta.count).toBeLessThanOrEqual(LIMIT.maximum);
      expect(new Set(body.data.map((walk) => walk.id)).size).toBe(body.data.length);
      for (const walk of body.data) {
        expect(walk.id).toMatch(UUID);
        expect(linkProblems(walk)).toEqual([]);
        expect(Object.values(walk.counts).reduce((a, b) => a + b, 0)).toBe(walk.count);
        urls.push(walk.web_url, walk.app_link);
      }
    }
    expect(urls.length).toBeGreaterThan(0);
    for (const [i, split] of pythonSplits(urls).entries()) {
      expect(split, urls[i]).toMatch(/^https? [a-z0-9.-]+ (None|\d{1,5}) \/(dashboard|open)\//);
    }
  });

  it('gives walk details valid against the contract, stops with UUIDs at positions 1 to n', async () => {
    for (const text of await draws('/api/v1/walks/93bfb174-4e7a-4a37-9c9d-b45ef12d5123', headers)) {
      const body = JSON.parse(text) as { data: WalkDetail };
      expect(validator.validateResponse('getWalk', 200, body).errors).toEqual([]);
      expect(body.data.id).toMatch(UUID);
      expect(body.data.stops.map((stop) => stop.position)).toEqual(body.data.stops.map((_, i) => i + 1));
      for (const stop of body.data.stops) expect(stop.id).toMatch(UUID);
    }
  });
});

describe('the mock in dynamic mode', { timeout: 60_000 }, () => {
  it('draws among walks, not the first example every time', async () => {
    const seen = new Set(await draws('/api/v1/walks', { prefer: 'dynamic=true' }));
    expect(seen.size).toBeGreaterThan(1);
  });
});
