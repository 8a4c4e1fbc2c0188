/**
 * `--traffic` takes a recording in whatever form a team has it, told by its bytes: HAR, `.har.gz`,
 * NDJSON of HAR entries (plain or gzip), standard input (`-`, HAR or NDJSON), and Playwright's
 * `content: 'attach'` recordings, beside their body files or zipped. Every form of the same
 * exchanges gets the same verdict; what cannot be read is counted and named, the run goes on, and
 * exit status 2 says when too little could be read.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { startReferenceServer, type RunningServer } from '../../reference-server/start.ts';
import type { Report } from '../core/report-model.ts';
import { main } from '../cli/cli.ts';

interface Entry {
  startedDateTime: string;
  time: number;
  request: { method: string; url: string; headers: { name: string; value: string }[] };
  response: {
    status: number;
    headers: { name: string; value: string }[];
    content: { mimeType: string; text?: string; _file?: string; size?: number };
  };
}

let server: RunningServer;
let dir: string;
let entries: Entry[];

async function record(path: string, headers: Record<string, string>, at: number): Promise<Entry> {
  const url = `${server.baseUrl}${path}`;
  const answer = await fetch(url, { headers });
  return {
    startedDateTime: new Date(1_760_000_000_000 + at * 1000).toISOString(),
    time: 2,
    request: {
      method: 'GET',
      url,
      headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
    },
    response: {
      status: answer.status,
      headers: [...answer.headers]
        .filter(([name]) => name !== 'content-encoding')
        .map(([name, value]) => ({ name, value })),
      content: { mimeType: 'application/json', text: await answer.text() },
    },
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'traffic-inputs-'));
  server = await startReferenceServer({ log: false });
  const bearer = { Authorization: `Bearer ${server.credentials.CONFORMANCE_API_KEY}` };
  const list = await record('/api/v1/walks?limit=5', bearer, 0);
  const ids = (JSON.parse(list.response.content.text ?? '{}') as { data: { id: string }[] }).data.map(
    (w) => w.id,
  );
  const details = await Promise.all(
    ids.slice(0, 3).map((id, i) => record(`/api/v1/walks/${id}`, bearer, i + 1)),
  );
  const keyless = await record('/api/v1/walks?limit=1', {}, 5);
  entries = [list, ...details, keyless];
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const harText = (list: readonly unknown[]) =>
  JSON.stringify(
    { log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: list } },
    null,
    1,
  );
const ndjsonText = (list: readonly unknown[]) => `${list.map((e) => JSON.stringify(e)).join('\n')}\n`;

let files = 0;
function file(name: string, content: string | Buffer): string {
  const path = join(dir, `${++files}-${name}`);
  writeFileSync(path, content);
  return path;
}

interface Run {
  status: number;
  stdout: string;
  stderr: string;
  report?: Report;
}

async function judge(path: string, stdin?: Buffer | string): Promise<Run> {
  const json = join(dir, `${++files}-report.json`);
  let stdout = '';
  let stderr = '';
  const status = await main(
    ['--traffic', path, '--reporter', 'json', '--output', json],
    {},
    {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      ...(stdin !== undefined ? { stdin: Readable.from([Buffer.from(stdin)]) } : {}),
    },
  );
  let report: Report | undefined;
  try {
    report = JSON.parse(readFileSync(json, 'utf8')) as Report;
  } catch {
    report = undefined;
  }
  return { status, stdout, stderr, ...(report ? { report } : {}) };
}

/** What a verdict is made of: the exit status, the rules that failed, how many exchanges were judged. */
function verdictOf(run: Run) {
  return {
    status: run.status,
    failed: run.report?.results.filter((r) => r.status === 'fail').map((r) => r.id),
    judged: run.report?.coverage?.traffic?.judged,
  };
}

/** The recording with one answer that a keyless request got data for: AUTH-003 fails. */
function broken(): Entry[] {
  return entries.map((e, i) =>
    i === entries.length - 1
      ? {
          ...e,
          response: {
            ...e.response,
            status: 200,
            content: { ...e.response.content, text: entries[0]?.response.content.text ?? '' },
          },
        }
      : e,
  );
}

describe('every form of a recording gets the same verdict', () => {
  it('HAR, .har.gz, NDJSON, NDJSON gzip, and each on standard input', async () => {
    const expected = verdictOf(await judge(file('r.har', harText(broken()))));
    expect(expected).toMatchObject({ status: 1, judged: 5 });
    expect(expected.failed).toContain('AUTH-003');
    const forms: [string, () => Promise<Run>][] = [
      ['.har.gz', () => judge(file('r.har.gz', gzipSync(harText(broken()))))],
      ['NDJSON', () => judge(file('r.ndjson', ndjsonText(broken())))],
      ['NDJSON gzip, named .log', () => judge(file('r.log', gzipSync(ndjsonText(broken()))))],
      ['HAR on stdin', () => judge('-', harText(broken()))],
      ['NDJSON gzip on stdin', () => judge('-', gzipSync(ndjsonText(broken())))],
    ];
    for (const [form, run] of forms) expect(verdictOf(await run()), form).toEqual(expected);
  });

  it('the unbroken recording passes in every form', async () => {
    for (const run of [
      await judge(file('ok.ndjson.gz', gzipSync(ndjsonText(entries)))),
      await judge('-', ndjsonText(entries)),
    ]) {
      expect(run.status, run.stdout + run.stderr).toBe(0);
      expect(run.report?.coverage?.traffic?.judged).toBe(5);
    }
  });
});

/** Playwright's `content: 'attach'`: each body in a file named by its SHA-1, the entry naming it. */
function attached(list: readonly Entry[]): { har: Entry[]; bodies: Map<string, Buffer> } {
  const bodies = new Map<string, Buffer>();
  const har = list.map((e) => {
    const bytes = Buffer.from(e.response.content.text ?? '');
    const name = `${createHash('sha1').update(bytes).digest('hex')}.json`;
    bodies.set(name, bytes);
    return {
      ...e,
      response: { ...e.response, content: { mimeType: 'application/json', size: bytes.length, _file: name } },
    };
  });
  return { har, bodies };
}

async function zipOf(members: Map<string, Buffer>): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const [name, bytes] of members) zip.addBuffer(bytes, name);
  const path = join(dir, `${++files}-recording.zip`);
  zip.end();
  const out = createWriteStream(path);
  zip.outputStream.pipe(out);
  await once(out, 'close');
  return path;
}

describe("Playwright's attached bodies", () => {
  it('reads the bodies from the files beside the HAR, and catches the broken answer', async () => {
    const { har, bodies } = attached(broken());
    const folder = join(dir, 'attach');
    mkdirSync(folder);
    for (const [name, bytes] of bodies) writeFileSync(join(folder, name), bytes);
    writeFileSync(join(folder, 'recording.har'), harText(har));
    const run = await judge(join(folder, 'recording.har'));
    expect(verdictOf(run)).toMatchObject({ status: 1, judged: 5 });
    expect(verdictOf(run).failed).toContain('AUTH-003');
  });

  it('reads the zip form (har.har and its bodies), and passes the unbroken recording', async () => {
    const { har, bodies } = attached(entries);
    const run = await judge(await zipOf(new Map([['har.har', Buffer.from(harText(har))], ...bodies])));
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.report?.coverage?.traffic?.judged).toBe(5);
  });

  it('names an entry whose body file is missing or lies outside the folder', async () => {
    const { har, bodies } = attached(entries);
    const [first, second] = har as [Entry, Entry];
    second.response.content._file = '../../etc/passwd';
    const folder = join(dir, 'attach-missing');
    mkdirSync(folder);
    for (const [name, bytes] of [...bodies].slice(2)) writeFileSync(join(folder, name), bytes);
    writeFileSync(join(folder, 'recording.har'), harText(har));
    const run = await judge(join(folder, 'recording.har'));
    const unreadable = run.report?.coverage?.traffic?.unreadable ?? [];
    expect(unreadable).toContain(
      `entry #1: its attached body "${first.response.content._file}" is not beside the recording`,
    );
    expect(unreadable).toContain(
      `entry #2: its attached body "../../etc/passwd" lies outside the recording's folder`,
    );
    expect(run.status).toBe(2);
  });
});

describe('what cannot be read is counted and named; the run goes on', () => {
  it('a malformed NDJSON line, by its line number', async () => {
    const many = Array.from({ length: 12 }, (_, i) => entries[i % entries.length]);
    const lines = ndjsonText(many).split('\n');
    lines.splice(3, 0, '{"request": {"method": "GET", "url": "cut');
    const run = await judge(file('bad-line.ndjson', lines.join('\n')));
    expect(run.report?.coverage?.traffic?.unreadable).toEqual(['entry #4: not valid JSON']);
    expect(run.report?.coverage?.traffic?.judged).toBe(12);
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });

  it('a truncated .gz: the entries before the cut are judged; too few read is exit status 2', async () => {
    const whole = gzipSync(ndjsonText(Array.from({ length: 40 }, (_, i) => entries[i % entries.length])));
    const nearlyAll = await judge(file('cut-late.ndjson.gz', whole.subarray(0, whole.length - 40)));
    expect(nearlyAll.report?.coverage?.traffic?.unreadable?.[0]).toMatch(/^entry #\d+: not valid JSON$/);
    expect(nearlyAll.report?.coverage?.traffic?.judged).toBeGreaterThanOrEqual(36);
    expect(nearlyAll.status, nearlyAll.stderr).toBe(0);
    const cutHar = gzipSync(harText(Array.from({ length: 10 }, (_, i) => entries[i % entries.length])));
    const half = await judge(file('cut-early.har.gz', cutHar.subarray(0, Math.floor(cutHar.length / 3))));
    expect(half.status).toBe(2);
    expect(half.stderr).toMatch(/read \d+ of \d+ exchanges of this API .*fewer than 90%/);
    expect(half.stderr).toMatch(/the recording is cut off inside this entry/);
  });

  it('empty standard input, and standard input that is not JSON: exit status 2 in one line', async () => {
    const empty = await judge('-', '');
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/--traffic - \(standard input\) is empty/);
    const text = await judge('-', 'GET /api/v1/walks 200\n');
    expect(text.status).toBe(2);
    expect(text.stderr).toMatch(/neither HAR nor NDJSON of HAR entries/);
  });
});
