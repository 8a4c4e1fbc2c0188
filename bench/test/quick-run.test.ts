/**
 * A tiny real run of `npm run bench` (very short load rounds, small data sets, no conformance
 * runs, no instruction counts: Valgrind's own test is instruction-count.test.ts): the servers start
 * and are measured, the floors serve the reference's bytes, and every derived figure in the JSON
 * follows from the measured ones. No timing is asserted.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCredentials } from '../../fixtures/index.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import { request } from 'undici';
import { type BenchReport, CODINGS, type Coding, growthOf, ratiosOf, verdictsOf } from '../figures.ts';
import { median } from '../../measure/statistics.ts';
import { LAUNCHER } from '../../command-line/launch.js';
import { ROOT } from '../processes.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'bench-quick-'));
const output = join(dir, 'bench.json');
let report: BenchReport;
let printed = '';
let exitCode: number | undefined;

beforeAll(async () => {
  // Targets are not met in a run this short: exit status 1 is an answer, not a failure.
  const finished = run(
    process.execPath,
    [
      LAUNCHER,
      'bench/main.ts',
      '--quick',
      '--duration',
      '0.2',
      '--warmup',
      '0',
      '--rounds',
      '2',
      '--connections',
      '2',
      '--large-walks',
      '400',
      '--startup-samples',
      '2',
      '--fixture-sizes',
      '100,200',
      '--skip',
      'conformance,instructions',
      '--output',
      output,
    ],
    { cwd: ROOT, timeout: 150_000, maxBuffer: 4 << 20 },
  );
  const { stdout, stderr, code } = await finished.then(
    (done) => ({ ...done, code: 0 }),
    (error: { stdout: string; stderr: string; code: number }) => error,
  );
  printed = stdout + stderr;
  exitCode = code;
  report = JSON.parse(readFileSync(output, 'utf8')) as BenchReport;
}, 160_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Both endpoints gzip on both data sets, and identity on the demo one, in the order they run. */
const MEASURED_ROWS = [
  'demo/list/gzip',
  'demo/detail/gzip',
  'demo/list/identity',
  'demo/detail/identity',
  'large/list/gzip',
  'large/detail/gzip',
];
const rowName = (row: { dataset: string; endpoint: string; coding: string }) =>
  `${row.dataset}/${row.endpoint}/${row.coding}`;

describe('a quick run', () => {
  it('measures the reference server, the floors and Prism on both endpoints of both data sets', () => {
    expect(report.mode).toBe('quick');
    expect(report.load.map(rowName)).toEqual(MEASURED_ROWS);
    for (const row of report.load) {
      for (const target of ['reference', 'expressFloor', 'nodeFloor', 'prism'] as const) {
        const figures = row.figures[target];
        expect([row.dataset, row.endpoint, target, figures?.roundsRequestsPerSecond.length]).toEqual([
          row.dataset,
          row.endpoint,
          target,
          2,
        ]);
        expect(figures?.requests).toBeGreaterThan(0);
        expect(figures?.cpuUsPerRequest).toBeGreaterThan(0);
        expect(figures?.failures).toBe(0);
      }
      // The Node floor holding the data set is measured on the large data set only.
      const held = row.figures.heldNodeFloor;
      expect([row.dataset, held?.roundsRequestsPerSecond.length]).toEqual([
        row.dataset,
        row.dataset === 'large' ? 2 : undefined,
      ]);
      if (held) expect([held.requests > 0, held.failures]).toEqual([true, 0]);
      expect(row.ratios).toEqual(ratiosOf(row.figures));
      expect(row.instructions).toBeUndefined();
    }
    expect(report.settings.instructions).toBeNull();
  });

  it('benchmarks the answers the reference server gives: the 200-walk list and the largest walk, gzip and not', async () => {
    const server = await startReferenceServer({ log: false });
    try {
      const auth = { authorization: `Bearer ${server.credentials.CONFORMANCE_API_KEY}` };
      const sent = async (path: string, coding: Coding) => {
        const answer = await request(server.baseUrl + path, {
          headers: { ...auth, 'accept-encoding': CODINGS[coding] },
        });
        return {
          bytes: Buffer.from(await answer.body.arrayBuffer()),
          encoding: answer.headers['content-encoding'],
        };
      };
      const list = await sent('/api/v1/walks?limit=200', 'identity');
      const walks = (JSON.parse(list.bytes.toString('utf8')) as { data: { id: string; count: number }[] })
        .data;
      const largest = Math.max(...walks.map((walk) => walk.count));
      const demo = report.load.filter((row) => row.dataset === 'demo');
      expect(demo.length).toBe(4);
      for (const row of demo) {
        if (row.endpoint === 'list') expect(row.path).toBe('/api/v1/walks?limit=200');
        else expect(walks.find((walk) => walk.id === row.path.split('/').pop())?.count).toBe(largest);
        const answer = await sent(row.path, row.coding);
        expect([row.endpoint, row.coding, row.bodyBytes, row.contentEncoding]).toEqual([
          row.endpoint,
          row.coding,
          answer.bytes.length,
          answer.encoding,
        ]);
        expect(row.contentEncoding).toBe(row.coding === 'gzip' ? 'gzip' : undefined);
      }
    } finally {
      await server.close();
    }
  });

  it('revalidates both endpoints with 304 and logs every measured request', () => {
    expect(report.revalidation.map(rowName)).toEqual(MEASURED_ROWS);
    expect(report.revalidation.map((row) => row.revalidatedStatus)).toEqual([304, 304, 304, 304, 304, 304]);
    expect(report.requestLogs.map((log) => log.dataset)).toEqual(['demo', 'large']);
    for (const log of report.requestLogs) expect(log.lines).toBeGreaterThanOrEqual(log.measuredRequests);
  });

  it('reports start-up and memory per data set, and fixture growth from the measured sizes', () => {
    expect(report.startup.map((row) => [row.dataset, row.walks])).toEqual([
      ['demo', 240],
      ['large', 400],
    ]);
    for (const row of report.startup) {
      expect(row.childProcessMs).toBe(median(row.childProcessSamplesMs));
      expect(row.inProcessMs).toBe(median(row.inProcessSamplesMs));
      expect(row.childProcessMs).toBeGreaterThan(0);
      expect(row.inProcessMs).toBeGreaterThan(0);
      expect(row.rssAtStartMb).toBeGreaterThan(0);
    }
    expect(report.fixtures.sizes.map((row) => row.walks)).toEqual([100, 200]);
    expect(report.fixtures.growth).toEqual(growthOf(report.fixtures.sizes));
    expect(report.conformance).toEqual([]);
  });

  it('derives its verdicts from its own figures, exits by them, and prints them without any key', () => {
    const { targets, ...figures } = report;
    expect(targets).toEqual(verdictsOf(figures));
    expect(exitCode).toBe(targets.every((verdict) => verdict.met) ? 0 : 1);
    expect(printed).toMatch(/^Targets$/m);
    expect(printed).not.toMatch(/issue/i);
    expect(printed).toContain(`Figures written to ${output}`);
    const everything = printed + readFileSync(output, 'utf8');
    for (const key of Object.values(demoCredentials())) expect(everything.includes(key)).toBe(false);
  });
});
