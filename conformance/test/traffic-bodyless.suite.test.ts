/**
 * A recording with no body at all, as a gateway's access log gives it (NDJSON of HAR entries, each
 * answer's status and headers alone): the rules judge what they can read (the status, the headers,
 * whether a key was sent), count those exchanges as judged, and never pass what they could not
 * read. A keyless 200 on a protected operation fails; an undocumented 5xx fails; the rest holds,
 * or is left to the rules that need a body, unjudged or skipped, never passed on the status alone.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type RunningServer } from '../../reference-server/start.ts';
import type { CheckResult, Report } from '../core/report-model.ts';
import { runCli } from './harness.ts';

interface Logged {
  path: string;
  headers: Record<string, string>;
  status: number;
  responseHeaders: [string, string][];
}

/** One line of a gateway's log as an NDJSON HAR entry: no `content.text`, so no body. */
function lineOf(base: string, logged: Logged): string {
  return JSON.stringify({
    startedDateTime: new Date(1_760_000_000_000).toISOString(),
    time: 2,
    request: {
      method: 'GET',
      url: `${base}${logged.path}`,
      headers: Object.entries(logged.headers).map(([name, value]) => ({ name, value })),
    },
    response: {
      status: logged.status,
      headers: logged.responseHeaders.map(([name, value]) => ({ name, value })),
      content: { size: -1, mimeType: 'application/json' },
    },
  });
}

let server: RunningServer;
let dir: string;
let key: string;
let logged: Logged[];

/** Asks the reference server and keeps what a gateway logs: the status and headers, not the body. */
async function log(path: string, headers: Record<string, string>): Promise<Logged> {
  const answer = await fetch(`${server.baseUrl}${path}`, { headers });
  await answer.arrayBuffer();
  return { path, headers, status: answer.status, responseHeaders: [...answer.headers] };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'traffic-bodyless-'));
  server = await startReferenceServer({ log: false });
  key = server.credentials.CONFORMANCE_API_KEY;
  const bearer = { Authorization: `Bearer ${key}` };
  const page = (await (
    await fetch(`${server.baseUrl}/api/v1/walks?limit=3`, { headers: bearer })
  ).json()) as { data: { id: string }[] };
  logged = [
    await log('/api/v1/walks', bearer),
    await log('/api/v1/walks?limit=3', { 'x-api-key': key }),
    ...(await Promise.all(page.data.map((w) => log(`/api/v1/walks/${w.id}`, bearer)))),
    await log('/api/v1/walks/00000000-0000-4000-8000-000000000000', bearer),
    await log('/api/v1/walks?limit=1', {}),
    await log('/api/v1/walks?limit=0', bearer),
  ];
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
/** Judges the log (changed by `change`), returning the run and its JSON report. */
async function judged(change: (entries: Logged[]) => Logged[] = (e) => e) {
  const file = join(dir, `${++files}.ndjson`);
  writeFileSync(
    file,
    change(logged.map((l) => ({ ...l })))
      .map((l) => lineOf(server.baseUrl, l))
      .join('\n'),
  );
  const json = join(dir, `${files}.json`);
  const run = await runCli(['--traffic', file, '--reporter', 'json', '--output', json], {
    CONFORMANCE_API_KEY: key,
  });
  const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
  const byId = new Map(report.results.map((r) => [r.id, r]));
  return { run, report, byId };
}

const withStatus =
  (path: RegExp, status: number) =>
  (entries: Logged[]): Logged[] =>
    entries.map((e) => (path.test(e.path) ? { ...e, status } : e));

describe('a recording without bodies (a gateway log)', () => {
  it('reads every entry as judged on status and headers, and fails nothing the deployment did right', async () => {
    const { run, report } = await judged();
    expect(report.coverage?.traffic).toMatchObject({ judged: logged.length, bodyless: logged.length });
    const failed = report.results.filter((r) => r.status === 'fail').map((r) => r.id);
    expect(failed, run.stdout).toEqual([]);
    // The rules about statuses and keys judged these exchanges, and count them as judged.
    const judgedByStatus = report.results.filter((r) => r.status === 'pass' && (r.judged?.requests ?? 0) > 0);
    expect(judgedByStatus.length).toBeGreaterThan(0);
    expect(run.stdout).toContain(`${logged.length} recorded without a body, judged on status and headers`);
  });

  it('never passes a rule about what a body holds: its schema, a detail against its summary, its stops', async () => {
    const { byId } = await judged();
    for (const id of ['ENVELOPE-005', 'ITEM-002', 'WALK-DETAIL-003', 'CONSISTENCY-003']) {
      const result = byId.get(id) as CheckResult | undefined;
      expect(result?.status, `${id}: ${result?.actual}`).not.toBe('pass');
      expect(result?.status, `${id}: ${result?.actual}`).not.toBe('fail');
    }
  });

  it('passes no rule about a list or a refusal on its status alone, and still fails a wrong status', async () => {
    const { byId, report } = await judged();
    const shapes = [
      'COLLECTION-001',
      'NOT-FOUND-001',
      ...report.results.map((r) => r.id).filter((id) => id.startsWith('LIMITS-')),
    ];
    for (const id of shapes) {
      const result = byId.get(id) as CheckResult | undefined;
      expect(result?.status, `${id}: ${result?.actual}`).not.toBe('pass');
    }
    const found = await judged(withStatus(/00000000-0000-4000-8000-000000000000$/, 200));
    expect(found.byId.get('NOT-FOUND-001')?.status, found.run.stdout).toBe('fail');
  });

  it('fails a keyless 200 on a protected operation, naming the entry', async () => {
    const { run, report } = await judged(withStatus(/limit=1$/, 200));
    expect(run.status).toBe(1);
    const failed = report.results.filter((r) => r.status === 'fail');
    expect(failed.length, run.stdout).toBeGreaterThan(0);
    const keyless = failed.find((r) => r.area === 'auth');
    expect(keyless, JSON.stringify(failed.map((r) => [r.id, r.actual]))).toBeDefined();
    expect(keyless?.actual).toMatch(/200/);
  });

  it('writes every finding to the JSON report; the console shows the first and says how many more', async () => {
    const many = 620;
    const keyless = (i: number): Logged => ({
      path: `/api/v1/walks/00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      headers: {},
      status: 200,
      responseHeaders: [['content-type', 'application/json']],
    });
    const { run, report } = await judged((entries) => [
      ...entries,
      ...Array.from({ length: many }, (_, i) => keyless(i)),
    ]);
    expect(run.status).toBe(1);
    const result = report.results.find((r) => r.status === 'fail' && (r.findings ?? 0) >= many);
    expect(result, JSON.stringify(report.results.map((r) => [r.id, r.status, r.findings]))).toBeDefined();
    // Every finding, each naming its own walk, beyond the 500 reports keep in memory.
    expect(result?.details?.length).toBe(result?.findings);
    for (const i of [0, 499, 500, many - 1])
      expect(result?.details?.join('\n')).toContain(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    expect(run.stdout).toMatch(/… and \d+ more \(see .+\.json\)/);
    // An answer recorded without its body is not said to be empty.
    expect(result?.details?.[0]).toContain('answered 200 (application/json), its body not recorded');
    expect(run.stdout).not.toContain('empty body');
  });

  it('fails an undocumented 5xx', async () => {
    const { run, report } = await judged(withStatus(/^\/api\/v1\/walks\?limit=3$/, 502));
    expect(run.status).toBe(1);
    const failed = report.results.filter((r) => r.status === 'fail');
    expect(failed.map((r) => r.actual).join('\n'), run.stdout).toMatch(/502/);
  });
});
