/**
 * `--traffic FILE.har`: a recording of the reference server's real answers — bodies kept as text,
 * as base64, and gzip, br or deflate coded — passes; the same recording with one answer broken
 * fails on the rule it breaks, naming the entry; keys, cookies and a key in a query string never
 * reach any output; and a file that cannot be judged is exit status 2 in one or two lines.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type RunningServer } from '../../reference-server/start.ts';
import type { Report } from '../core/report-model.ts';
import { runCli } from './harness.ts';

type Coding = 'text' | 'base64' | 'gzip' | 'br' | 'deflate';

interface Recorded {
  method: string;
  url: string;
  headers: { name: string; value: string }[];
  status: number;
  responseHeaders: { name: string; value: string }[];
  body: string | undefined;
  coding: Coding;
}

const CODERS: Record<Exclude<Coding, 'text' | 'base64'>, (b: Buffer) => Buffer> = {
  gzip: gzipSync,
  br: brotliCompressSync,
  deflate: deflateSync,
};

/** A HAR 1.2 entry as browsers and gateways export it. */
function entryOf(r: Recorded): object {
  const content: Record<string, unknown> = { size: r.body?.length ?? 0, mimeType: 'application/json' };
  const responseHeaders = [...r.responseHeaders];
  if (r.body !== undefined) {
    if (r.coding === 'text') content.text = r.body;
    else if (r.coding === 'base64') {
      content.text = Buffer.from(r.body).toString('base64');
      content.encoding = 'base64';
    } else {
      content.text = CODERS[r.coding](Buffer.from(r.body)).toString('base64');
      content.encoding = 'base64';
      responseHeaders.push({ name: 'Content-Encoding', value: r.coding });
    }
  }
  return {
    startedDateTime: new Date(1_760_000_000_000).toISOString(),
    time: 3,
    request: {
      method: r.method,
      url: r.url,
      httpVersion: 'HTTP/1.1',
      headers: r.headers,
      cookies: [],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: r.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: responseHeaders,
      cookies: [],
      content,
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 3, receive: 0 },
  };
}

const harOf = (recorded: Recorded[]) =>
  JSON.stringify({
    log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: recorded.map(entryOf) },
  });

let server: RunningServer;
let key: string;
let dir: string;
let base: Recorded[];
const COOKIE = 'session=a1b2c3d4e5f6g7h8';

/** Asks the reference server and keeps its answer as a recording would. */
async function record(
  path: string,
  headers: Record<string, string>,
  coding: Coding = 'text',
): Promise<Recorded> {
  const url = `${server.baseUrl}${path}`;
  const answer = await fetch(url, { headers });
  const body = await answer.text();
  return {
    method: 'GET',
    url,
    headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
    status: answer.status,
    responseHeaders: [...answer.headers]
      .filter(([name]) => name !== 'content-encoding')
      .map(([name, value]) => ({ name, value })),
    body,
    coding,
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'traffic-recordings-'));
  server = await startReferenceServer({ log: false });
  key = server.credentials.CONFORMANCE_API_KEY;
  const bearer = { Authorization: `Bearer ${key}`, Cookie: COOKIE };
  const list = await record('/api/v1/walks', bearer);
  const full = await record('/api/v1/walks?limit=200', { 'x-api-key': key }, 'base64');
  const ids = (JSON.parse(full.body ?? '{}') as { data: { id: string }[] }).data.map((w) => w.id);
  const details = await Promise.all(
    (['gzip', 'br', 'deflate'] as const).map((coding, i) =>
      record(`/api/v1/walks/${ids[i]}`, bearer, coding),
    ),
  );
  const unknown = await record('/api/v1/walks/00000000-0000-4000-8000-000000000000', bearer);
  const noKey = await record('/api/v1/walks?limit=1', {});
  const queryKey = await record(`/api/v1/walks?api_key=${key}&limit=3`, {});
  const unrecorded = { ...(await record('/api/v1/walks?limit=2', bearer)), body: undefined };
  const asset: Recorded = {
    method: 'GET',
    url: 'https://cdn.example/app.js',
    headers: [],
    status: 200,
    responseHeaders: [{ name: 'Content-Type', value: 'text/javascript' }],
    body: 'console.log(1)',
    coding: 'text',
  };
  base = [list, full, ...details, unknown, noKey, queryKey, unrecorded, asset];
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
function fileOf(recorded: Recorded[]): string {
  const path = join(dir, `${++files}.har`);
  writeFileSync(path, harOf(recorded));
  return path;
}

/** The base recording with one answer's JSON body changed. */
function withBody(index: number, change: (json: Record<string, unknown>) => void): Recorded[] {
  return base.map((r, i) => {
    if (i !== index) return r;
    const json = JSON.parse(r.body ?? '{}') as Record<string, unknown>;
    change(json);
    return { ...r, body: JSON.stringify(json) };
  });
}

describe('judging a recording of the reference server', () => {
  it('passes, reading text, base64 and gzip/br/deflate bodies, and counts what it judged', async () => {
    const json = join(dir, 'pass.json');
    const run = await runCli(['--traffic', fileOf(base), '--reporter', 'json', '--output', json]);
    expect(run.stderr).toBe('');
    expect(run.status, run.stdout).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.coverage?.traffic).toMatchObject({
      entries: 10,
      ofApi: 9,
      judged: 9,
      notJudged: [],
      bodyless: 1,
    });
    expect(run.stdout).toContain(
      "judged 9 of 9 exchanges of this API (90% of the file's 10 entries were this API's); 1 recorded without a body, judged on status and headers",
    );
    expect(run.stdout).toMatch(/GET \/api\/v1\/walks\/\{id\} \(getWalk\): 200 ✓ 3, .*404 ✓ 1/);
    const judged = report.results.filter((r) => r.status === 'pass').map((r) => r.id);
    expect(judged).toEqual(expect.arrayContaining(['ENVELOPE-005', 'WALK-DETAIL-003', 'CONSISTENCY-003']));
  });

  const faults: [string, () => Recorded[], string, RegExp][] = [
    [
      'meta.count off by one',
      () => withBody(0, (j) => ((j.meta as { count: number }).count += 1)),
      'ENVELOPE-002',
      /#1 GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/walks: meta\.count/,
    ],
    [
      'two stops swapped (gzip-coded)',
      () =>
        withBody(2, (j) => {
          const stops = (j.data as { stops: unknown[] }).stops;
          [stops[0], stops[1]] = [stops[1], stops[0]];
        }),
      'WALK-DETAIL-003',
      /#3 GET .*\/api\/v1\/walks\/[^:]+: position 1 follows 2/,
    ],
    [
      'more walks than the limit asked',
      () => base.map((r, i) => (i === 0 ? { ...r, url: `${r.url}?limit=2` } : r)),
      'COLLECTION-008',
      /GET .*limit=2: 50 items, more than the 2 asked/,
    ],
    [
      'a detail named otherwise than its summary',
      () => withBody(3, (j) => ((j.data as { name: string }).name = 'renamed')),
      'ITEM-002',
      /detail name "renamed"/,
    ],
    [
      'an unknown walk answered with another code',
      () => withBody(5, (j) => ((j.error as { code: string }).code = 'gone')),
      'ENVELOPE-014',
      /#6 GET .*gone/,
    ],
  ];
  for (const [what, recording, id, line] of faults) {
    it(`fails ${id} when ${what}, naming the entry by index and request line`, async () => {
      // The recorded key is the configured primary key: the rules about its answers judge them.
      const run = await runCli(['--traffic', fileOf(recording()), '--verbose'], { CONFORMANCE_API_KEY: key });
      expect(run.status, run.stdout).toBe(1);
      expect(run.stdout).toContain(id);
      expect(run.stdout).toMatch(line);
    });
  }
});

describe('reports of a recording', () => {
  it('take --expect-failures of the rules a recording is judged by, and --compare with a previous report', async () => {
    const broken = fileOf(base.map((r, i) => (i === 0 ? { ...r, url: `${r.url}?limit=2` } : r)));
    const expected = join(dir, 'expected.yaml');
    writeFileSync(expected, '- id: COLLECTION-008\n  reason: the gateway caps nothing yet\n');
    const previous = join(dir, 'previous.json');
    await runCli(['--traffic', fileOf(base), '--reporter', 'json', '--output', previous]);
    const run = await runCli(['--traffic', broken, '--expect-failures', expected, '--compare', previous]);
    expect(run.status, run.stdout).toBe(0);
    expect(run.stdout).toContain('COLLECTION-008');
    expect(run.stdout).toMatch(/newly failing|NEWLY FAILING|expected failure/i);
  });
});

describe('secrets in a recording', () => {
  it('never prints a key, a cookie or a key in a query string, in any output or report', async () => {
    // An answer that echoes the key, so the failure's excerpt would carry it.
    const echoed = base.map((r, i) =>
      i === 7
        ? {
            ...r,
            status: 500,
            body: JSON.stringify({ ok: false, error: { code: 'internal_error', message: `bad key ${key}` } }),
          }
        : r,
    );
    const outputs = ['json', 'junit', 'html'].map((name) => join(dir, `secret.${name}`));
    const run = await runCli([
      '--traffic',
      fileOf(echoed),
      '--verbose',
      '--reporter',
      'json,junit,html',
      ...outputs.flatMap((o) => ['--output', o]),
    ]);
    expect(run.status).toBe(1);
    const texts = [run.stdout, run.stderr, ...outputs.map((o) => readFileSync(o, 'utf8'))];
    for (const text of texts) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(-16));
      expect(text).not.toContain('a1b2c3d4e5f6g7h8');
    }
    expect(run.stdout).toMatch(
      /#8 GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/walks\?api_key=\[redacted\]&limit=3/,
    );
  });
});

describe('--redact-bodies', () => {
  it('keeps walk data out of every finding and report: ids and field paths only', async () => {
    const detail = JSON.parse(base[3]?.body ?? '{}') as { data: { id: string; name: string } };
    const renamed = withBody(3, (j) => ((j.data as { name: string }).name = 'Secret Street Walk'));
    const json = join(dir, 'withheld.json');
    const args = ['--traffic', fileOf(renamed), '--verbose', '--reporter', 'json', '--output', json];
    const shown = await runCli(args, { CONFORMANCE_API_KEY: key });
    expect(shown.stdout).toContain('Secret Street Walk');
    const run = await runCli([...args, '--redact-bodies'], { CONFORMANCE_API_KEY: key });
    expect(run.status, run.stdout).toBe(1);
    const texts = [run.stdout, readFileSync(json, 'utf8')];
    for (const text of texts) {
      expect(text).toContain('ITEM-002');
      expect(text).toContain(detail.data.id);
      expect(text).toMatch(/detail name \\?"…\\?" ≠ summary name \\?"…\\?"/);
      expect(text).not.toContain('Secret Street Walk');
      expect(text).not.toContain(detail.data.name);
    }
  });

  it('--traffic-memory takes a size of at least 1MB; a recording judged within 1MB gets the same verdict', async () => {
    for (const [value, why] of [
      ['lots', '--traffic-memory must be a size such as 256MB or 1GB, not "lots"'],
      ['10XB', '--traffic-memory must be a size such as 256MB or 1GB, not "10XB"'],
      ['0', '--traffic-memory must be at least 1MB, not 0'],
    ]) {
      const bad = await runCli(['--traffic', 'any.har', '--traffic-memory', value as string]);
      expect(bad.status).toBe(2);
      // One line saying why, and the pointer to --help every refused flag gets.
      expect(bad.stderr.trim().split('\n')).toEqual([
        `conformance: ${why}`,
        'Run with --help for the options.',
      ]);
    }
    const broken = fileOf(withBody(3, (j) => ((j.data as { name: string }).name = 'renamed')));
    const [roomy, tight] = [
      await runCli(['--traffic', broken], { CONFORMANCE_API_KEY: key }),
      await runCli(['--traffic', broken, '--traffic-memory', '1MB'], { CONFORMANCE_API_KEY: key }),
    ];
    expect(tight.status).toBe(1);
    const verdict = (text: string) => text.split('\n').filter((line) => /^[✗✓]|Verdict/.test(line));
    expect(verdict(tight.stdout)).toEqual(verdict(roomy.stdout));
  });

  it('applies to --traffic and --merge only', async () => {
    const run = await runCli(['--redact-bodies', '--list']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--redact-bodies applies to --traffic and --merge only');
  });
});

describe('files that cannot be judged (exit status 2)', () => {
  it('a file that is not HAR', async () => {
    const path = join(dir, 'not.har');
    writeFileSync(path, '{"log":{"version":"1.2"}}');
    const run = await runCli(['--traffic', path]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/is not a HAR file: it has no log\.entries array/);
  });

  it('a recording without any exchange of this API', async () => {
    const run = await runCli(['--traffic', fileOf(base.slice(-1))]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/holds no exchange of this API under a …\/api\/v1\/ path \(1 entries\)/);
  });

  it('two API base URLs without --base-url, naming both; --base-url chooses one', async () => {
    const gateway: Recorded = { ...(base[0] as Recorded), url: 'https://gw.example/canvassing/api/v1/walks' };
    const path = fileOf([...base, gateway]);
    const ambiguous = await runCli(['--traffic', path]);
    expect(ambiguous.status).toBe(2);
    expect(ambiguous.stderr).toContain('holds exchanges of 2 API base URLs');
    expect(ambiguous.stderr).toContain(`${server.baseUrl} (9 entries)`);
    expect(ambiguous.stderr).toContain('https://gw.example/canvassing (1 entry)');
    expect(ambiguous.stderr).toContain('choose one with --base-url');
    const chosen = await runCli(['--traffic', path, '--base-url', server.baseUrl]);
    expect(chosen.status, chosen.stdout).toBe(0);
  });

  it('--har with --traffic: nothing is sent, so nothing can be recorded', async () => {
    const run = await runCli(['--traffic', 'any.har', '--har', join(dir, 'out.har')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--har has nothing to record');
  });

  it('lists the rules a recording is judged by: those of a live run, keys and isolation included', async () => {
    const run = await runCli(['--traffic', 'any.har', '--list']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('COLLECTION-008');
    expect(run.stdout).toContain('CONSISTENCY-003');
    // Keys named by role in a recording (our own --har writes $CONFORMANCE_API_KEY) are judged as live.
    expect(run.stdout).toContain('AUTH-001');
    expect(run.stdout).toContain('ISOLATION-002');
  });
});
