/**
 * The attacker's catalogue: every entry is told back from the request it makes, on every protected
 * route, with no code per entry; and its rules judge recorded exchanges by what a trick's answer
 * granted (data, an item's existence, links elsewhere, more than one key alone, a cached answer, a
 * send), whatever refusal, redirect or error page answered it otherwise, in any order.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../core/credentials.ts';
import { observe } from '../core/observe.ts';
import { parseCli } from '../cli/config.ts';
import { CATALOGUE, catalogueSize, FAMILIES, type Family, SOURCES } from '../rules/catalogue/catalogue.ts';
import { applied, sendsPost } from '../rules/catalogue/plan.ts';
import { recognise } from '../rules/catalogue/recognise.ts';
import { targetsOf } from '../rules/catalogue/targets.ts';
import { fullDepthLine } from '../run/live.ts';
import { specModelFor } from '../run/runner.ts';
import type { Exchange, RequestSpec } from '../core/exchange.ts';
import type { CheckResult, Report } from '../core/report-model.ts';
import { runCli } from './harness.ts';
import {
  apiKey,
  BASE,
  bearer,
  type Entry,
  harOf,
  list,
  OURS,
  summary,
  THEIRS,
  UNKNOWN,
  walk,
} from './hand-made-har.ts';

const spec = specModelFor();

/** An exchange of `request` as the client would record it, observed as the rules see it. */
function observed(request: RequestSpec) {
  const query = request.query !== undefined ? `?${request.query}` : '';
  const exchange: Exchange = {
    seq: 1,
    request: {
      method: request.method ?? 'GET',
      url: `${BASE}${request.path}${query}`,
      keys: [],
      headers: { ...request.headers },
      curl: '',
    },
    response: { status: 401, headers: {}, body: '', bytes: 0 },
    durationMs: 0,
    retries: 0,
  };
  return observe(exchange, { spec, keyring: new Keyring({ keys: {} }), basePath: '', source: 'traffic' });
}

describe('the catalogue as data', () => {
  it('names every entry once, with its family and a source, and tries each family by default', () => {
    const names = CATALOGUE.map((t) => `${t.family}: ${t.name}`);
    expect(new Set(names).size).toBe(names.length);
    for (const transform of CATALOGUE) {
      expect(transform.sources.length, transform.name).toBeGreaterThan(0);
      for (const source of transform.sources) expect(SOURCES[source], transform.name).toBeDefined();
    }
    const size = catalogueSize();
    expect(Object.keys(size).sort()).toEqual(Object.keys(FAMILIES).sort());
    for (const family of Object.keys(FAMILIES) as Family[]) expect(size[family].default).toBeGreaterThan(0);
    expect(Object.values(size).reduce((n, f) => n + f.entries, 0)).toBe(CATALOGUE.length);
  });
});

describe('an entry told back from its request', () => {
  const requestTricks = CATALOGUE.filter((t) => t.family !== 'two-keys' && t.family !== 'cache');

  for (const target of targetsOf(spec)) {
    it(`names the entry and the route for every trick on ${target.method} ${target.template}`, () => {
      const path = target.template.replace(/\{[^}]+\}/, OURS);
      const base: RequestSpec = {
        path,
        method: target.method,
        ...(target.op?.kind === 'collection' ? { query: 'limit=200' } : {}),
      };
      const missed: string[] = [];
      for (const transform of requestTricks) {
        // A route that would send is tried only with what still sends (`plan.ts`).
        if (target.kind === 'send' && !sendsPost(transform)) continue;
        const request = applied(base, target.template, transform);
        if (!request) continue;
        // A POST to a planned collection is that route's own request, not a trick of its GET.
        if (
          targetsOf(spec).some(
            (t) => t !== target && t.template === target.template && t.method === request.method,
          )
        )
          continue;
        const { tricks } = recognise(spec, observed(request));
        const found = tricks.find((seen) => seen.transform === transform);
        const right = found?.target.template === target.template && (!target.item || found.id === OURS);
        if (!right) missed.push(`${transform.name}: ${request.method ?? 'GET'} ${request.path}`);
      }
      expect(missed).toEqual([]);
    });
  }

  it('finds no trick in the plain requests of the API, nor in an unknown path', () => {
    for (const path of ['/api/v1/walks', `/api/v1/walks/${OURS}`, '/api/v1/lists', '/api/v1/nothing']) {
      expect(recognise(spec, observed({ path })).tricks, path).toEqual([]);
    }
  });
});

const refused = (code: string) => ({ ok: false, error: { code, message: 'No.' } });
const PRIMARY = bearer('CONFORMANCE_API_KEY');

let dir: string;
let files = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'catalogue-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A recording judged with `--traffic`: results by rule id, the report, and the exit status. */
async function judged(
  entries: Entry[],
): Promise<{ status: number; byId: Map<string, CheckResult>; report: Report }> {
  const har = join(dir, `${++files}.har`);
  const json = join(dir, `${files}.json`);
  writeFileSync(har, harOf(entries));
  const run = await runCli(['--traffic', har, '--reporter', 'json', '--output', json]);
  const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
  return { status: run.status, byId: new Map(report.results.map((r) => [r.id, r])), report };
}

/** The plain answers a recording shows: the owner's list, each campaign's items. */
const PLAIN: Entry[] = [
  { path: '/api/v1/walks?limit=200', headers: PRIMARY, status: 200, body: list(OURS) },
  { path: `/api/v1/walks/${OURS}`, headers: PRIMARY, status: 200, body: walk(OURS) },
  {
    path: `/api/v1/walks/${THEIRS}`,
    headers: bearer('CONFORMANCE_OTHER_CAMPAIGN_KEY'),
    status: 200,
    body: walk(THEIRS),
  },
];

describe('a trick answered without what the refusal withheld', () => {
  it('holds on a refusal, a 404, a redirect, a gateway HTML 400 and a 429', async () => {
    const { byId } = await judged([
      ...PLAIN,
      { path: '/api/v1/walks.json', status: 401, body: refused('unauthorized') },
      { path: '/api/v1/walks;x=1', status: 404, body: refused('not_found') },
      { path: '/api/v1/walks%20', status: 308, headers: {} },
      {
        path: '/api/v1/%c0%af/walks',
        status: 400,
        body: '<html><body>400 Bad Request</body></html>',
        contentType: 'text/html',
      },
      { path: `/api/v1/walks%2F${OURS}`, status: 429, body: refused('too_many_requests') },
    ]);
    expect(byId.get('AUTH-015')?.status, byId.get('AUTH-015')?.actual).toBe('pass');
  });
});

describe('a trick answered with data', () => {
  it('fails AUTH-015 without a key, naming the trick, its family and source, the refusal and a curl, under API2 alone', async () => {
    const { byId, report } = await judged([
      ...PLAIN,
      { path: '/api/v1/walks.json?limit=200', status: 200, body: list(OURS) },
    ]);
    const result = byId.get('AUTH-015');
    expect(result?.status).toBe('fail');
    expect(result?.actual).toContain('a .json suffix (path spellings, encodings and normalisations;');
    expect(result?.actual).toContain("bbot's bypass403 module");
    expect(result?.actual).toContain('broke the refusal of no key on GET /api/v1/walks');
    expect(result?.actual).toContain(`reproduce: curl -sS -i '${BASE}/api/v1/walks.json?limit=200'`);
    expect(result?.owaspFailed).toEqual(['API2:2023']);
    const api5 = report.security?.find((c) => c.id === 'API5:2023');
    expect(api5?.failed).not.toContain('AUTH-015');
  });

  // A request to `/` is no exchange of this API in a recording: X-Original-URL on / shows in live runs.
  it('places a scope bypass under API5, under the route a rewrite header names', async () => {
    const { byId } = await judged([
      ...PLAIN,
      {
        path: '/api/v1/walks?limit=1',
        headers: { ...bearer('CONFORMANCE_NO_SCOPE_KEY'), 'X-Original-URL': '/api/v1/walks?limit=200' },
        status: 200,
        body: list(OURS),
      },
    ]);
    const result = byId.get('AUTH-018');
    expect(result?.status).toBe('fail');
    expect(result?.actual).toContain('the refusal of a key without the scope on GET /api/v1/walks');
    expect(result?.owaspFailed).toEqual(['API5:2023']);
  });
});

describe('a method that tells which items exist', () => {
  const head = (id: string, status: number): Entry => ({
    method: 'HEAD',
    path: `/api/v1/walks/${id}`,
    status,
  });
  const plainRefusal = (id: string, status: number): Entry => ({
    path: `/api/v1/walks/${id}`,
    status,
    body: refused(status === 404 ? 'not_found' : 'unauthorized'),
  });

  it('fails AUTH-019 on HEAD without a key: 200 for items that exist, 404 for one that does not', async () => {
    const { byId } = await judged([
      ...PLAIN,
      head(OURS, 200),
      head(THEIRS, 200),
      head(UNKNOWN, 404),
      plainRefusal(OURS, 401),
      plainRefusal(UNKNOWN, 401),
    ]);
    expect(byId.get('AUTH-019')?.status).toBe('fail');
    expect(byId.get('AUTH-019')?.actual).toContain(
      'tells which items exist on GET /api/v1/walks/{id} with no key: 200 for items that exist, 404 for one that does not; the refusal itself answers 401',
    );
  });

  it('holds when the refusal itself tells them apart, or when HEAD answers both alike', async () => {
    const itself = await judged([
      ...PLAIN,
      head(OURS, 401),
      head(UNKNOWN, 404),
      plainRefusal(OURS, 401),
      plainRefusal(UNKNOWN, 404),
    ]);
    expect(itself.byId.get('AUTH-019')?.status).toBe('pass');
    const alike = await judged([...PLAIN, head(OURS, 401), head(UNKNOWN, 401), plainRefusal(UNKNOWN, 401)]);
    expect(alike.byId.get('AUTH-019')?.status).toBe('pass');
  });
});

describe('host and forwarding headers', () => {
  const forwarded = (web: string): Entry => ({
    path: '/api/v1/walks?limit=200',
    headers: { ...PRIMARY, 'X-Forwarded-Host': 'conformance-probe.invalid' },
    status: 200,
    body: { ok: true, data: [summary(OURS, web)], meta: { count: 1 } },
    at: 100,
  });

  it('fails AUTH-020 when the links follow the header, under API8', async () => {
    const { byId } = await judged([...PLAIN, forwarded('https://conformance-probe.invalid')]);
    expect(byId.get('AUTH-020')?.status).toBe('fail');
    expect(byId.get('AUTH-020')?.actual).toContain(
      'moved the links of GET /api/v1/walks to https://conformance-probe.invalid',
    );
    expect(byId.get('AUTH-020')?.owaspFailed).toEqual(['API8:2023']);
  });

  it('holds when the links keep the origin of the plain answers, whichever comes first', async () => {
    const { byId } = await judged([forwarded('https://web.test'), ...PLAIN]);
    expect(byId.get('AUTH-020')?.status).toBe('pass');
  });
});

describe('two keys of two roles', () => {
  const path = `/api/v1/walks/${OURS}`;
  const alone = (name: string, status: number): Entry => ({
    path,
    headers: bearer(name),
    status,
    body: refused(status === 403 ? 'forbidden' : 'unauthorized'),
  });
  const both = (status: number, body: unknown): Entry => ({
    path,
    headers: { ...bearer('CONFORMANCE_REVOKED_KEY'), ...apiKey('CONFORMANCE_NO_SCOPE_KEY') },
    status,
    body,
  });

  it('fails AUTH-021 when they are served what each alone is refused', async () => {
    const { byId } = await judged([
      ...PLAIN,
      alone('CONFORMANCE_REVOKED_KEY', 401),
      alone('CONFORMANCE_NO_SCOPE_KEY', 403),
      both(200, walk(OURS)),
    ]);
    expect(byId.get('AUTH-021')?.status).toBe('fail');
    expect(byId.get('AUTH-021')?.owaspFailed).toEqual(['API2:2023']);
  });

  it('holds when they are refused, or served what one key alone is served', async () => {
    const refusedBoth = await judged([...PLAIN, both(400, refused('conflicting_credentials'))]);
    expect(refusedBoth.byId.get('AUTH-021')?.status).toBe('pass');
    const followsOne = await judged([
      ...PLAIN,
      {
        path,
        headers: { ...PRIMARY, ...apiKey('CONFORMANCE_OTHER_CAMPAIGN_KEY') },
        status: 200,
        body: walk(OURS),
      },
      { path, headers: bearer('CONFORMANCE_OTHER_CAMPAIGN_KEY'), status: 404, body: refused('not_found') },
    ]);
    expect(followsOne.byId.get('AUTH-021')?.status).toBe('pass');
  });
});

describe('the same read made again', () => {
  const read = (status: number, at: number): Entry => ({
    path: `/api/v1/walks/${OURS}`,
    headers: PRIMARY,
    status,
    body: status === 200 ? walk(OURS) : refused(status === 404 ? 'not_found' : 'forbidden'),
    at,
  });

  it('fails AUTH-022 when the owner is refused what it was served a moment before, in either order of the file', async () => {
    for (const entries of [
      [read(200, 0), read(403, 2_000)],
      [read(403, 2_000), read(200, 0)],
    ]) {
      const { byId } = await judged(entries);
      expect(byId.get('AUTH-022')?.status).toBe('fail');
      expect(byId.get('AUTH-022')?.actual).toContain('200, then 403 when made again 2000 ms later');
    }
  });

  it('passes an item not found the second time (deleted between two reads), and reads an hour apart', async () => {
    const deleted = await judged([read(200, 0), read(404, 2_000)]);
    expect(deleted.byId.get('AUTH-022')?.status).not.toBe('fail');
    const apart = await judged([read(200, 0), read(403, 3_600_000)]);
    expect(apart.byId.get('AUTH-022')?.status).toBe('pass');
  });
});

describe('routes that would send', () => {
  const send = (status: number, extra: Partial<Entry> = {}): Entry => ({
    method: 'POST',
    path: `/api/v1/sms/campaigns/${UNKNOWN}/send`,
    headers: PRIMARY,
    status,
    body: status < 300 ? { ok: true, data: { queued: true } } : refused('not_found'),
    ...extra,
  });

  it('fails METHODS-007 on a POST answered 2xx, or a POST tunnelled through a GET', async () => {
    const posted = await judged([...PLAIN, send(202)]);
    expect(posted.byId.get('METHODS-007')?.status).toBe('fail');
    const tunnelled = await judged([
      ...PLAIN,
      send(200, { method: 'GET', headers: { ...PRIMARY, 'X-HTTP-Method-Override': 'POST' } }),
    ]);
    expect(tunnelled.byId.get('METHODS-007')?.status).toBe('fail');
    expect(tunnelled.byId.get('METHODS-007')?.actual).toContain('(X-HTTP-Method-Override)');
  });

  it('passes any refusal, a 501 included', async () => {
    const { byId } = await judged([...PLAIN, send(404), send(501, { body: refused('not_implemented') })]);
    expect(byId.get('METHODS-007')?.status).toBe('pass');
  });
});

describe('a recording that shows no key header anywhere', () => {
  it('leaves tricks without a key unjudged: it may be a sanitized export', async () => {
    const { byId } = await judged([{ path: '/api/v1/walks.json', status: 200, body: list(OURS) }]);
    expect(byId.get('AUTH-015')?.status).toBe('not-judged');
  });
});

describe('--depth full', () => {
  it('spends the plan unless --max-requests is given, and says so before it starts when a budget cuts it', () => {
    expect(parseCli(['--depth', 'full'], {}).config.maxRequests).toBeGreaterThanOrEqual(100_000);
    expect(parseCli(['--depth', 'full', '--max-requests', '900'], {}).config.maxRequests).toBe(900);
    expect(parseCli([], {}).config.depth).toBeUndefined();
    expect(() => parseCli(['--depth', 'deep'], {})).toThrow(/--depth/);
    expect(fullDepthLine(5000, 4, 100_000)).toContain('--depth full plans 5000 requests');
    expect(fullDepthLine(5000, 4, 900)).toContain('raise --max-requests to 5004');
  });
});
