/**
 * `--traffic` on worker threads judges a recording exactly as the main thread alone does: the same
 * report byte for byte (results, examples in the same order, coverage, drift), the same secrets
 * redacted, the same refusal of a file that is not HAR; and every worker is gone when the run ends,
 * however it ends. `CONFORMANCE_TRAFFIC_WORKERS=N` makes N workers judge every entry of a file
 * small enough to be quick, so the worker path runs here as it does on a recording of 300 MB.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type RunningServer } from '../../reference-server/start.ts';
import { runTraffic } from '../traffic/run.ts';
import { runCli } from './harness.ts';

interface HarEntry {
  request: { method: string; url: string; headers: { name: string; value: string }[] };
  response: { status: number; headers: { name: string; value: string }[]; content: { text?: string } };
}

let server: RunningServer;
let dir: string;
let entries: HarEntry[];
const SECRET = 'session=f00dfeedcafebeef1234';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'traffic-workers-'));
  server = await startReferenceServer({ log: false });
  const har = join(dir, 'run.har');
  // The suite's own recording of a run: lists, details, refusals, writes, several keys.
  await runCli(['--base-url', server.baseUrl, '--har', har, '--quiet'], server.credentials);
  entries = (JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: HarEntry[] } }).log.entries;
}, 120_000);

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
function fileOf(list: HarEntry[], raw?: string): string {
  const path = join(dir, `${++files}.har`);
  writeFileSync(
    path,
    raw ?? JSON.stringify({ log: { version: '1.2', creator: { name: 't' }, entries: list } }),
  );
  return path;
}

/** The recording with faults every kind of rule sees, and a secret in headers and in a body. */
function broken(): HarEntry[] {
  const copy = JSON.parse(JSON.stringify(entries)) as HarEntry[];
  const body = (e: HarEntry) => JSON.parse(e.response.content.text ?? '{}') as Record<string, unknown>;
  const lists = copy.filter((e) => e.response.status === 200 && /\/walks(\?|$)/.test(e.request.url));
  const details = copy.filter((e) => e.response.status === 200 && /\/walks\/[^/?]+$/.test(e.request.url));
  lists.slice(0, 3).forEach((e) => {
    const json = body(e) as { meta: { count: number }; data: { count: number; extra?: number }[] };
    json.meta.count += 1;
    if (json.data[0]) json.data[0].count += 1;
    if (json.data[1]) json.data[1].extra = 1;
    e.response.content.text = JSON.stringify(json);
  });
  details.slice(0, 4).forEach((e) => {
    const json = body(e) as { data: { name: string; stops: unknown[] } };
    json.data.name = `${json.data.name} (renamed)`;
    json.data.stops.reverse();
    e.response.content.text = JSON.stringify(json);
  });
  copy.forEach((e, i) => {
    if (i % 7 === 0) e.request.headers.push({ name: 'Cookie', value: SECRET });
  });
  const echo = copy.find((e) => e.response.status === 404) as HarEntry;
  echo.response.status = 500;
  echo.response.content.text = JSON.stringify({ ok: false, error: { code: 'boom', message: SECRET } });
  return copy;
}

/** A report as text, without what differs from run to run (when it ran, how long it took). */
function comparable(text: string): string {
  return text
    .replace(/"durationMs":\s*\d+/g, '"durationMs":0')
    .replace(/"startedAt":\s*"[^"]*"/g, '"startedAt":""');
}

/** Threads of this process: a worker left running would stay among them. */
function threads(): number {
  return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
}

async function settledThreads(before: number): Promise<number> {
  for (let i = 0; i < 50 && threads() > before; i++) await new Promise((r) => setTimeout(r, 20));
  return threads();
}

describe('judging a recording on worker threads', () => {
  it('gives the report of the main thread alone, byte for byte, with the same secrets redacted', async () => {
    const file = fileOf(broken());
    const alone = await runTraffic({ file, strict: false, seed: 1, workers: 0 });
    const before = threads();
    const shared = await runTraffic({ file, strict: false, seed: 1, workers: 2 });
    expect(shared.threads).toEqual({ workers: 2, entriesOnWorkers: entries.length });
    expect(alone.threads).toEqual({ workers: 0, entriesOnWorkers: 0 });
    expect(alone.report.summary.verdict).toBe('fail');
    const text = (run: typeof alone) => run.redact(comparable(JSON.stringify(run.report)));
    expect(text(shared)).toBe(text(alone));
    expect(text(shared)).not.toContain(SECRET.split('=')[1]);
    expect(JSON.stringify(shared.report)).toContain('renamed');
    expect(await settledThreads(before)).toBe(before);
  });

  it('compares each detail with the summary of the list just before it, whichever thread judged either', async () => {
    // A list polled again and again, changed now and then: a worker sends a list like its last one
    // without its walks, and the merge puts back that thread's, not the file's last list.
    const list = entries.find((e) => e.response.status === 200 && /\/walks$/.test(e.request.url)) as HarEntry;
    const json = JSON.parse(list.response.content.text ?? '{}') as { data: { id: string; count: number }[] };
    const first = json.data[0] as { id: string; count: number };
    const detail = entries.find(
      (e) => e.response.status === 200 && e.request.url.endsWith(first.id),
    ) as HarEntry;
    first.count += 1;
    const changed = { ...list, response: { ...list.response, content: { text: JSON.stringify(json) } } };
    const polled = Array.from({ length: 400 }, (_, i) => [i % 3 === 1 ? changed : list, detail]).flat();
    const file = fileOf(polled);
    const [alone, shared] = await Promise.all(
      [0, 2].map((workers) => runTraffic({ file, strict: false, seed: 1, workers })),
    );
    const consistency = (run: typeof alone) => run?.report.results.find((r) => r.id === 'CONSISTENCY-001');
    expect(consistency(alone)?.status).toBe('fail');
    expect(consistency(alone)?.details?.length).toBe(133);
    expect(comparable(JSON.stringify(shared?.report))).toBe(comparable(JSON.stringify(alone?.report)));
  });

  it('prints the same console report through the CLI with CONFORMANCE_TRAFFIC_WORKERS', async () => {
    const file = fileOf(broken());
    const run = (workers: string) =>
      runCli(['--traffic', file, '--verbose', '--strict'], { CONFORMANCE_TRAFFIC_WORKERS: workers });
    const [alone, shared] = [await run('0'), await run('1')];
    expect(alone.status).toBe(1);
    const shown = (text: string) => text.replace(/\d+(\.\d+)? ?m?s\b/g, 'T');
    expect(shown(shared.stdout)).toBe(shown(alone.stdout));
    expect(shared.stdout).not.toContain(SECRET.split('=')[1]);
  });

  it('refuses a bad CONFORMANCE_TRAFFIC_WORKERS in one line (exit 2)', async () => {
    const run = await runCli(['--traffic', fileOf(entries.slice(0, 5))], {
      CONFORMANCE_TRAFFIC_WORKERS: 'many',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('CONFORMANCE_TRAFFIC_WORKERS');
  });
});

describe('a file that cannot be judged, on worker threads', () => {
  const text = () => JSON.stringify({ log: { entries: entries.slice(0, 150) } });
  const cases: [string, () => string][] = [
    [
      'an entry that is not JSON, before brackets that do not match',
      () =>
        text()
          .replace('"request":{', '"request":{{')
          .replace(/\]\}\}$/, '}}}'),
    ],
    ['brackets that do not match after every entry', () => text().replace(/\]\}\}$/, '}}}')],
    ['a file cut short', () => text().slice(0, -200)],
  ];
  for (const [what, make] of cases) {
    it(`refuses ${what} with the main thread's message, and stops every worker`, async () => {
      const file = fileOf([], make());
      const alone = await runTraffic({ file, strict: false, seed: 1, workers: 0 }).catch((e: Error) => e);
      const before = threads();
      const shared = await runTraffic({ file, strict: false, seed: 1, workers: 2 }).catch((e: Error) => e);
      expect(alone).toBeInstanceOf(Error);
      expect((shared as Error).message).toBe((alone as Error).message);
      expect(await settledThreads(before)).toBe(before);
    });
  }

  it('names the API bases of an ambiguous file as the main thread does (exit 2), and stops every worker', async () => {
    const elsewhere = entries.slice(0, 40).map((e) => ({
      ...e,
      request: { ...e.request, url: e.request.url.replace(server.baseUrl, 'https://gw.example/canvassing') },
    }));
    const file = fileOf([...entries.slice(0, 60), ...elsewhere]);
    const before = threads();
    const [alone, shared] = await Promise.all(
      ['0', '2'].map((workers) => runCli(['--traffic', file], { CONFORMANCE_TRAFFIC_WORKERS: workers })),
    );
    expect(shared?.status).toBe(2);
    expect(shared?.stderr).toContain('holds exchanges of 2 API base URLs');
    expect(shared?.stderr).toBe(alone?.stderr);
    expect(await settledThreads(before)).toBe(before);
  });
});
