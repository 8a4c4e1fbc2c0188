/**
 * What the not-found, planned, write and pairing rules know from an exchange alone: the unknown id
 * the suite makes up, an id the spec's own schema refuses, a path that is no endpoint in any
 * spelling, and the codes the spec pairs with statuses. A recording made elsewhere is judged by
 * those facts: a write that was accepted fails, a spelling of a live path is no unknown path, and a
 * planned endpoint's answer without its body is left unjudged, never passed.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUnknownId, unknownIdOf } from '../core/ids.ts';
import { specModelOf } from '../core/spec-model.ts';
import { statedPairs } from '../rules/drift.ts';
import { idRefusal, isUnknownPath } from '../rules/not-found.ts';
import { specModelFor } from '../run/runner.ts';
import type { Report } from '../core/report-model.ts';
import { runCli } from './harness.ts';

const spec = specModelFor();
const getWalk = spec.operation('getWalk');

describe('what an exchange tells', () => {
  it('tells the made-up unknown id from any random UUID, and the spec takes it for a well-formed id', () => {
    const made = unknownIdOf();
    expect(isUnknownId(made)).toBe(true);
    expect(idRefusal(spec, getWalk, made)).toBeUndefined();
    expect(Array.from({ length: 1_000 }, () => randomUUID()).filter(isUnknownId)).toEqual([]);
    expect(isUnknownId(`${made}0`)).toBe(false);
  });

  it("refuses an id by the spec's schema of the item's id, and none where the spec leaves ids open", () => {
    expect(idRefusal(spec, getWalk, 'not-an-id')).toMatch(/uuid/);
    expect(idRefusal(spec, getWalk, randomUUID())).toBeUndefined();
    const doc = structuredClone(spec.doc);
    delete (doc.components?.schemas?.WalkId as { format?: string }).format;
    const open = specModelOf(doc, { ...spec.identity, path: 'open-ids.yaml' });
    expect(idRefusal(open, open.operation('getWalk'), 'not-an-id')).toBeUndefined();
  });

  it('takes no spelling of a live or planned path for an unknown path', () => {
    const unknown = ['/api/v1/walks-unknown-path', '/api/v1', '/api/v1/walks/abc/stops', '/api/v2/walks'];
    const spellings = [
      '/api/v1/walks/',
      '/api/v1/WALKS',
      '/api/v1//walks',
      '/api/v1/%77alks/abc',
      '/api/v1/x/../walks',
      '/api/v1/./walks',
      '/api/v1/lists/abc/',
      '/api/v1/sms/campaigns',
    ];
    expect(unknown.filter((path) => isUnknownPath(spec, path))).toEqual(unknown);
    expect(spellings.filter((path) => isUnknownPath(spec, path))).toEqual([]);
  });

  it('pairs the codes the spec states, not those it marks as project decisions', () => {
    expect(
      Object.fromEntries([...statedPairs(spec).statusesOf].map(([code, statuses]) => [code, [...statuses]])),
    ).toEqual({
      forbidden: [403],
      not_found: [404],
    });
  });
});

const BASE = 'https://api.example.test';

/** A HAR entry as an exporter writes it; `body` undefined for one that kept no body. */
function entry(
  method: string,
  path: string,
  status: number,
  body?: string,
  type = 'application/json',
): object {
  return {
    startedDateTime: new Date(1_760_000_000_000).toISOString(),
    time: 2,
    request: {
      method,
      url: `${BASE}${path}`,
      httpVersion: 'HTTP/1.1',
      headers: [],
      cookies: [],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'Content-Type', value: type }],
      cookies: [],
      content: { size: body?.length ?? 0, mimeType: type, ...(body === undefined ? {} : { text: body }) },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 2, receive: 0 },
  };
}

describe('a recording made elsewhere', () => {
  let dir: string;
  let run: { status: number; stdout: string };
  let report: Report;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'unknowns-and-writes-'));
    const entries = [
      entry('GET', '/api/v1/walks', 200, JSON.stringify({ ok: true, data: [], meta: { count: 0 } })),
      entry('MKCOL', '/api/v1/walks', 201, JSON.stringify({ ok: true, data: {} })),
      entry('GET', '/api/v1/WALKS/', 200, JSON.stringify({ ok: true, data: [], meta: { count: 0 } })),
      entry('GET', '/api/v1/lists', 200),
      entry('GET', '/api/v1/walks?limit=7', 418),
      entry('GET', '/api/v1/nope', 404, '<html><body>Cannot GET /api/v1/nope</body></html>', 'text/html'),
      entry(
        'GET',
        '/api/v1/walks/not-an-id',
        400,
        JSON.stringify({ ok: false, error: { code: 'not_found', message: 'No.' } }),
      ),
      entry(
        'GET',
        '/api/v1/walks/abc',
        403,
        JSON.stringify({ ok: false, error: { code: 'unauthenticated', message: 'No.' } }),
      ),
    ];
    const har = join(dir, 'elsewhere.har');
    writeFileSync(
      har,
      JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }),
    );
    const out = join(dir, 'elsewhere.json');
    run = await runCli(['--traffic', har, '--reporter', 'json', '--output', out, '--quiet']);
    report = JSON.parse(readFileSync(out, 'utf8')) as Report;
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const statusOf = (id: string) => report.results.find((r) => r.id === id)?.status;

  it('fails a write that was accepted, whatever its method, and an unknown path answered with HTML', () => {
    expect(run.status, run.stdout).toBe(1);
    expect(statusOf('METHODS-001')).toBe('fail');
    // An HTML page is the rule about every answer's, once; not the unknown-path rule's too.
    expect(statusOf('ENVELOPE-011')).toBe('fail');
    expect(report.results.find((r) => r.id === 'ENVELOPE-011')?.actual).toContain('/api/v1/nope');
    expect(statusOf('NOT-FOUND-004')).not.toBe('fail');
  });

  it('holds a malformed id to the envelope, and the code not_found to its status, 404', () => {
    expect(statusOf('NOT-FOUND-002')).toBe('pass');
    // The only finding: a keyless 403 may carry a code of its own (§5.8 leaves it open).
    expect(report.results.find((r) => r.id === 'ENVELOPE-014')?.actual).toBe(
      `#7 GET ${BASE}/api/v1/walks/not-an-id: error.code "not_found" with status 400, not 404`,
    );
  });

  it('judges an answer recorded without its body on its status: an undocumented one is drift', () => {
    expect(report.results.find((r) => r.id === 'DRIFT-002')).toMatchObject({
      status: 'advisory',
      actual: 'listWalks 418: not documented for this operation',
    });
  });

  it('leaves a planned endpoint answered 200 without its body unjudged, and judges no unknown id it never saw', () => {
    expect(statusOf('PLANNED-001')).toBe('not-judged');
    expect(statusOf('NOT-FOUND-001')).toBe('skip');
  });
});
