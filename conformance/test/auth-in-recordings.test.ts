/**
 * Authentication and isolation judged from recordings alone (`--traffic`): keys named by role (as
 * our own `--har` writes them) are judged by their role, a raw key the run does not know is
 * attributed to no campaign, a recording that shows no key header anywhere (a sanitized export)
 * leaves its keyless requests unjudged rather than failed, and the verdicts over many exchanges do
 * not depend on the order the file holds them in.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  THEIRS,
  UNKNOWN,
  walk,
} from './hand-made-har.ts';

const refused = (status: number, code: string, message: string) => ({ ok: false, error: { code, message } });
const notFound = refused(404, 'not_found', 'Walk not found.');

let dir: string;
let files = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'auth-in-recordings-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The results of one recording judged with `--traffic`, by rule id, and the exit status. */
async function judged(entries: Entry[]): Promise<{ status: number; byId: Map<string, CheckResult> }> {
  const har = join(dir, `${++files}.har`);
  const json = join(dir, `${files}.json`);
  writeFileSync(har, harOf(entries));
  const run = await runCli(['--traffic', har, '--reporter', 'json', '--output', json]);
  const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
  return { status: run.status, byId: new Map(report.results.map((r) => [r.id, r])) };
}

const keylessServed: Entry = { path: '/api/v1/walks', status: 200, body: list(OURS) };

describe('a keyless request answered with data, in a recording', () => {
  it('is left unjudged, with why, when no exchange of the file shows a key header (a sanitized export)', async () => {
    const { byId } = await judged([
      keylessServed,
      { path: `/api/v1/walks/${OURS}`, status: 200, body: walk(OURS) },
    ]);
    expect(byId.get('AUTH-003')?.status).toBe('not-judged');
    expect(byId.get('AUTH-003')?.reason).toMatch(
      /no key header on any exchange: it may be a sanitized export/,
    );
  });

  it('fails AUTH-003 when another exchange of the file shows a key header', async () => {
    const { status, byId } = await judged([
      keylessServed,
      {
        path: '/api/v1/walks?limit=5',
        headers: bearer('CONFORMANCE_API_KEY'),
        status: 200,
        body: list(OURS),
      },
    ]);
    expect(status).toBe(1);
    expect(byId.get('AUTH-003')?.status).toBe('fail');
    expect(byId.get('AUTH-003')?.actual).toContain(`GET ${BASE}/api/v1/walks: no key: answered 200`);
  });
});

describe('keys named by role in a recording', () => {
  it('fails AUTH-009 on the revoked key served, and AUTH-013 on the same request refused in the other header', async () => {
    const path = '/api/v1/walks?limit=200';
    const { byId } = await judged([
      {
        path,
        headers: bearer('CONFORMANCE_REVOKED_KEY'),
        status: 401,
        body: refused(401, 'unauthorized', 'No.'),
      },
      { path, headers: apiKey('CONFORMANCE_REVOKED_KEY'), status: 200, body: list(OURS), at: 500 },
    ]);
    expect(byId.get('AUTH-009')?.status).toBe('fail');
    expect(byId.get('AUTH-013')?.status).toBe('fail');
    expect(byId.get('AUTH-013')?.actual).toContain(
      'Authorization: Bearer got 401 unauthorized, x-api-key got 200',
    );
  });

  it('compares the two headers only for answers within about a minute of each other', async () => {
    const path = '/api/v1/walks?limit=200';
    const { byId } = await judged([
      { path, headers: bearer('CONFORMANCE_API_KEY'), status: 200, body: list(OURS) },
      {
        path,
        headers: apiKey('CONFORMANCE_API_KEY'),
        status: 200,
        body: list(OURS, THEIRS),
        at: 10 * 60_000,
      },
    ]);
    expect(byId.get('AUTH-013')?.status).toBe('skip');
    expect(byId.get('AUTH-002')?.status).toBe('pass');
  });

  it('fails AUTH-011 on the no-scope key served, judged by its status alone', async () => {
    const { byId } = await judged([
      { path: '/api/v1/walks', headers: bearer('CONFORMANCE_NO_SCOPE_KEY'), status: 200, body: list(OURS) },
    ]);
    expect(byId.get('AUTH-011')?.status).toBe('fail');
  });
});

describe('isolation in a recording, whatever the order of its entries', () => {
  const ownList: Entry = {
    path: '/api/v1/walks',
    headers: bearer('CONFORMANCE_API_KEY'),
    status: 200,
    body: list(OURS),
  };
  const theirList: Entry = {
    path: '/api/v1/walks',
    headers: bearer('CONFORMANCE_OTHER_CAMPAIGN_KEY'),
    status: 200,
    body: list(THEIRS),
  };
  const crossServed: Entry = {
    path: `/api/v1/walks/${OURS}`,
    headers: bearer('CONFORMANCE_OTHER_CAMPAIGN_KEY'),
    status: 200,
    body: walk(OURS),
  };

  it('fails ISOLATION-002 on our item served to the other campaign, the fetch before or after our list', async () => {
    for (const entries of [
      [ownList, theirList, crossServed],
      [crossServed, theirList, ownList],
    ]) {
      const { byId } = await judged(entries);
      expect(byId.get('ISOLATION-002')?.status).toBe('fail');
      expect(byId.get('ISOLATION-002')?.actual).toContain(
        `item ${OURS} is answered to keys of two campaigns`,
      );
    }
  });

  it('attributes a raw key the run does not know to no campaign', async () => {
    const unknownKey = { Authorization: 'Bearer svc_sk_live_0123456789abcdefABCDEF0123' };
    const { byId } = await judged([ownList, theirList, { ...crossServed, headers: unknownKey }]);
    expect(byId.get('ISOLATION-002')?.status).toBe('skip');
    expect(byId.get('ISOLATION-001')?.status).toBe('pass');
  });

  it('fails ISOLATION-003 when the other campaign is told our item apart from an unknown id, and passes when not', async () => {
    const asked = (id: string, body: unknown): Entry => ({
      path: `/api/v1/walks/${id}`,
      headers: bearer('CONFORMANCE_OTHER_CAMPAIGN_KEY'),
      status: 404,
      body,
    });
    const differs = await judged([
      asked(OURS, refused(404, 'not_found', 'This walk belongs to another campaign.')),
      asked(UNKNOWN, notFound),
      ownList,
      theirList,
    ]);
    expect(differs.byId.get('ISOLATION-003')?.status).toBe('fail');
    const same = await judged([asked(OURS, notFound), asked(UNKNOWN, notFound), ownList, theirList]);
    expect(same.byId.get('ISOLATION-003')?.status).toBe('pass');
    expect(same.byId.get('ISOLATION-002')?.status).toBe('pass');
  });
});
