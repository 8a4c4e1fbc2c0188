/**
 * Short soaks (one-second rounds): the soak reaches every kind of answer, counts what a correct
 * server must not answer as errors, and `npm run soak` reports and exits per its verdict. No timing
 * or memory figure is asserted here; `npm run soak` itself is the long run.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSoak, type SoakOptions, type SoakReport } from '../soak.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SHORT: SoakOptions = {
  rounds: 2,
  durationSeconds: 1,
  connections: 4,
  warmupSeconds: 0,
  // Memory is not judged in one-second rounds (garbage collection alone moves it more): the
  // error counts are, so a correct server must pass.
  maxMemoryGrowth: 10,
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'soak-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('soak', () => {
  it('sends every kind of request of the mix and finds no error on the reference server', async () => {
    const report = await runSoak(SHORT);
    expect(report.rounds.map((round) => round.round)).toEqual([1, 2]);
    for (const round of report.rounds) {
      expect(round.requests).toBeGreaterThan(0);
      expect(round.errors).toEqual({ unexpectedStatus: 0, socket: 0, timeouts: 0, total: 0 });
      const expectedStatuses = new Set(Object.values(round.kinds).map((kind) => kind.expected));
      expect(expectedStatuses).toEqual(new Set([200, 304, 400, 401, 403, 404, 405]));
      for (const [name, kind] of Object.entries(round.kinds)) {
        expect([name, kind.sent > 0, kind.unexpected]).toEqual([name, true, {}]);
      }
      expect(round.memory.rssBytes).toBeGreaterThan(round.memory.heapUsedBytes);
      expect(round.memory.heapUsedBytes).toBeGreaterThan(0);
    }
    expect(report.failures).toEqual([]);
    expect(report.verdict).toBe('pass');
  }, 60_000);

  it('counts the answers a correct server must not give as errors: a throttling server fails', async () => {
    const report = await runSoak({ ...SHORT, rateLimit: 3 });
    expect(report.verdict).toBe('fail');
    const unexpected = report.rounds.map((round) => round.errors.unexpectedStatus);
    expect(unexpected.every((count) => count > 0)).toBe(true);
    expect(report.failures.join('\n')).toMatch(/round 1: \d+ unexpected statuses.*"429"/);
  }, 60_000);
});

describe('npm run soak', () => {
  it('prints a table per round, writes the JSON report and exits by its verdict', async () => {
    const output = join(dir, 'soak.json');
    const run = await npmSoak(['--quick', '--rounds', '2', '--max-growth', '1000', '--output', output]);
    const report = JSON.parse(await readFile(output, 'utf8')) as SoakReport;
    expect([report.verdict, run.code]).toEqual(['pass', 0]);
    expect(report.rounds).toHaveLength(2);
    expect(report.options).toMatchObject({ rounds: 2, durationSeconds: 1, connections: 8 });
    expect(run.stdout).toMatch(/^round +requests +req\/s +p50 ms +p99 ms +errors +RSS MB +heap MB$/m);
    expect(run.stdout).toMatch(/^2 +\d+ /m);
    expect(run.stdout).toContain(`verdict: ${report.verdict}`);
  }, 60_000);

  it('exits 2 on an option it cannot use', async () => {
    const run = await npmSoak(['--connections', 'many']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--connections must be an integer');
  }, 60_000);
});

async function npmSoak(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('npm', ['run', '--silent', 'soak', '--', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}
