/**
 * The gateway mapping of the conformance README, run as written: nginx's JSON access log of the
 * reference server's answers, turned into NDJSON of HAR entries by the documented `jq` line, is
 * judged on status, headers and keys (no bodies); the same log with a keyless request answered 200
 * fails AUTH-003.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type RunningServer } from '../../reference-server/start.ts';
import type { Report } from '../core/report-model.ts';
import { runCli } from './harness.ts';

const README = new URL('../README.md', import.meta.url);

/** The jq program of the README's `jq -c '…' access.log` line. */
function documentedProgram(): string {
  const line = readFileSync(README, 'utf8')
    .split('\n')
    .find((l) => l.startsWith("jq -c '"));
  const program = /^jq -c '(.*)' access\.log > access\.ndjson$/.exec(line ?? '')?.[1];
  if (!program) throw new Error('the README has no jq line of the documented shape');
  return program;
}

let server: RunningServer;
let dir: string;
let lines: Record<string, unknown>[];

/** What nginx logs of one request, with the README's log_format. */
async function logged(path: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const url = `${server.baseUrl}${path}`;
  const answer = await fetch(url, { headers });
  await answer.arrayBuffer();
  const h = (name: string) => answer.headers.get(name) ?? '';
  return {
    time: '2026-03-01T10:00:00+00:00',
    request_time: 0.004,
    method: 'GET',
    url,
    status: answer.status,
    authorization: headers.Authorization ?? '',
    x_api_key: headers['x-api-key'] ?? '',
    accept: '',
    accept_encoding: '',
    content_type: h('content-type'),
    content_encoding: h('content-encoding'),
    cache_control: h('cache-control'),
    etag: h('etag'),
    vary: h('vary'),
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-log-'));
  server = await startReferenceServer({ log: false });
  const key = server.credentials.CONFORMANCE_API_KEY;
  lines = [
    await logged('/api/v1/walks?limit=5', { Authorization: `Bearer ${key}` }),
    await logged('/api/v1/walks?limit=5', { 'x-api-key': key }),
    await logged('/api/v1/walks?limit=1', {}),
  ];
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function judgeLog(name: string, log: Record<string, unknown>[]) {
  const path = join(dir, `${name}.log`);
  writeFileSync(path, `${log.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const ndjson = execFileSync('jq', ['-c', documentedProgram(), path], { encoding: 'utf8' });
  const entries = join(dir, `${name}.ndjson`);
  writeFileSync(entries, ndjson);
  const json = join(dir, `${name}.json`);
  const run = await runCli(['--traffic', entries, '--reporter', 'json', '--output', json], {
    CONFORMANCE_API_KEY: server.credentials.CONFORMANCE_API_KEY,
  });
  return { run, report: JSON.parse(readFileSync(json, 'utf8')) as Report };
}

describe("a gateway's access log, through the documented jq line", () => {
  it('judges every logged request on status, headers and keys', async () => {
    const { run, report } = await judgeLog('ok', lines);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(report.coverage?.traffic).toMatchObject({ ofApi: 3, judged: 3 });
    const passed = report.results.filter((r) => r.status === 'pass').map((r) => r.id);
    expect(passed).toEqual(expect.arrayContaining(['AUTH-001', 'AUTH-002', 'AUTH-003']));
  });

  it('fails AUTH-003 when the log shows a keyless request answered 200', async () => {
    const broken = lines.map((l, i) => (i === 2 ? { ...l, status: 200 } : l));
    const { run, report } = await judgeLog('broken', broken);
    expect(run.status).toBe(1);
    expect(report.results.find((r) => r.id === 'AUTH-003')?.status).toBe('fail');
    expect(run.stdout).not.toContain(server.credentials.CONFORMANCE_API_KEY);
  });
});
