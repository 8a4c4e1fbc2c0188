/**
 * Throttling is the target's pace, never its fault. The CLI, run as a process against the reference
 * server behind legal throttling, passes (exit 0) and finishes: a per-minute limit per key (429 with
 * `Retry-After` until the key's minute is over), 429s at random on 30 % of requests, and 503s with
 * `Retry-After` at random. A request still throttled after its retries leaves the rules that asked
 * for it not judged (exit 2, with the pace to set), and a run that would outlast `--max-duration`
 * ends at it (exit 2, naming what was still waiting).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, type StartOptions, startReferenceServer } from '../../reference-server/start.ts';
import { startThrottlingFront, type ThrottlingOptions } from '../../tools/test-support/throttling-front.ts';
import type { Report } from '../core/report-model.ts';

/** The environment without any CONFORMANCE_* of the machine running the tests. */
const CLEAN_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('CONFORMANCE_')),
);

interface Run {
  status: number | null;
  stderr: string;
  report: Report | undefined;
  wallMs: number;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'throttling-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm run conformance -- ARGS` as a process against `baseUrl`, with the server's keys; its JSON report. */
async function conformance(
  name: string,
  baseUrl: string,
  credentials: Record<string, string>,
  args: string[] = [],
): Promise<Run> {
  const json = join(dir, `${name}.json`);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      'command-line/launch.js',
      'conformance/main.ts',
      '--',
      '--base-url',
      baseUrl,
      '--reporter',
      'json',
      '--output',
      json,
      ...args,
    ],
    { env: { ...CLEAN_ENV, ...credentials, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  let report: Report | undefined;
  try {
    report = JSON.parse(readFileSync(json, 'utf8')) as Report;
  } catch {
    report = undefined;
  }
  return { status, stderr, report, wallMs: performance.now() - started };
}

/** The reference server (with `options`), behind a throttling front when `front` is given. */
async function target(options: StartOptions, front?: ThrottlingOptions) {
  const server: RunningServer = await startReferenceServer({ ...options, port: 0, log: false });
  const { CONFORMANCE_WEB_BASE_URL: _web, ...keys } = server.credentials;
  const throttling = front ? await startThrottlingFront(server.baseUrl, front) : undefined;
  return {
    url: throttling?.url ?? server.baseUrl,
    keys,
    close: async () => {
      await throttling?.close();
      await server.close();
    },
  };
}

describe('legal throttling passes and finishes', () => {
  it('a per-minute limit per key (10 a minute, 429 with Retry-After until the minute ends): waited out, exit 0', async () => {
    // Low enough that the primary key's requests of these rules outrun a minute's allowance.
    const deployment = await target({ rateLimit: { requestsPerMinute: 10 } });
    try {
      const run = await conformance('per-minute', deployment.url, deployment.keys, [
        '--only',
        'NOT-FOUND,ENVELOPE',
      ]);
      expect(run.status, run.stderr).toBe(0);
      // The limit was met and its Retry-After (up to a minute) waited out.
      expect(run.report?.requests.rateLimit?.throttled).toBeGreaterThan(0);
      expect(run.report?.requests.retried?.['429']).toBeGreaterThan(0);
    } finally {
      await deployment.close();
    }
  }, 240_000);

  it('429s on 30 % of requests at random (Retry-After: 1): no limit learnt, exit 0', async () => {
    const faults = { rate: 0.3, kinds: ['429'] as const };
    const deployment = await target({ turbulence: { seed: 1, faults } });
    try {
      const run = await conformance('random-429', deployment.url, deployment.keys);
      expect(run.status, run.stderr).toBe(0);
      expect(run.report?.requests.rateLimit?.throttled).toBeGreaterThan(50);
      expect(run.report?.requests.rateLimit?.learntPerSecond).toBeUndefined();
      expect(run.report?.requests.rateLimit?.learntPerMinute).toBeUndefined();
    } finally {
      await deployment.close();
    }
  }, 240_000);

  it('503s with Retry-After on 30 % of requests at random: waited out, exit 0', async () => {
    const deployment = await target({}, { share: 0.3, status: 503, retryAfterSeconds: 1, seed: 3 });
    try {
      const run = await conformance('random-503', deployment.url, deployment.keys);
      expect(run.status, run.stderr).toBe(0);
      expect(run.report?.requests.retried?.['503']).toBeGreaterThan(50);
    } finally {
      await deployment.close();
    }
  }, 240_000);
});

describe('throttling that does not end', () => {
  it('a request throttled through every retry leaves its rules not judged, with the pace to set (exit 2)', async () => {
    // Every read of an unknown walk is answered 429: NOT-FOUND-001's requests never get an answer.
    const deployment = await target(
      {},
      { always: /^\/api\/v1\/walks\/[^/?]+$/, status: 429, retryAfterSeconds: 0 },
    );
    try {
      const run = await conformance('always-throttled', deployment.url, deployment.keys, [
        '--only',
        'NOT-FOUND-001',
      ]);
      expect(run.status, run.stderr).toBe(2);
      const result = run.report?.results.find((r) => r.id === 'NOT-FOUND-001');
      expect(result?.status).toBe('not-judged');
      expect(run.report?.notJudged).toMatch(/still throttled \(429\) after their retries/);
      expect(run.stderr).toMatch(/run again with --rate-limit \d+\/(s|min)/);
    } finally {
      await deployment.close();
    }
  }, 120_000);

  it('--max-duration 15s ends the run at it, naming what was still waiting (exit 2)', async () => {
    // A per-minute limit makes a whole run wait for the next minute, past the run's end.
    const deployment = await target({ rateLimit: { requestsPerMinute: 120 } });
    try {
      const run = await conformance('over-time', deployment.url, deployment.keys, ['--max-duration', '15s']);
      expect(run.status, run.stderr).toBe(2);
      expect(run.report?.notJudged).toMatch(
        /the run reached --max-duration 15s with \d+ request\(s\) still waiting \(.*waiting for the target's pace/,
      );
      expect(run.stderr).toContain(run.report?.notJudged);
      // The run's own bound, and the process's start-up and reports.
      expect(run.wallMs).toBeLessThan(30_000);
    } finally {
      await deployment.close();
    }
  }, 60_000);
});
