/**
 * A legal answer larger than --max-response-bytes: not the deployment's fault. The
 * checks it cuts are not judged, the run names the answer and the flag, and exits 2 unless a
 * required check failed elsewhere.
 */
import { describe, expect, it } from 'vitest';
import { exitStatusOf } from '../cli/cli.ts';
import type { Report } from '../core/report-model.ts';
import { runCli } from './harness.ts';

const reportWith = (verdict: 'pass' | 'fail', overCap?: string[]) =>
  ({ summary: { verdict }, results: [], ...(overCap ? { overCap } : {}) }) as unknown as Report;

describe('answers larger than --max-response-bytes', () => {
  it('leave a run that otherwise passes unjudged (exit 2), and a failing run failed (exit 1)', () => {
    const cut = ['GET http://h/api/v1/walks?limit=200: the answer (status 200) exceeded 1024 bytes'];
    expect(exitStatusOf(reportWith('pass', cut))).toBe(2);
    expect(exitStatusOf(reportWith('fail', cut))).toBe(1);
    expect(exitStatusOf(reportWith('pass'))).toBe(0);
  });

  it('are named, with the flag, by a run against the reference server whose full list is over the cap', async () => {
    const run = await runCli(['--max-response-bytes', '30000', '--only', 'COLLECTION,WALKS-LIST,AUTH-013']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /an answer larger than the size cap was not judged: GET \S+\/api\/v1\/walks\?limit=200: the answer \(status 200\)/,
    );
    expect(run.stderr).toContain('Raise --max-response-bytes to judge it.');
    expect(run.stdout).not.toMatch(/✗ (COLLECTION|WALKS-LIST)/);
    expect(run.stdout).toMatch(/Verdict: NOT JUDGED \(\d+ answer\(s\) larger than --max-response-bytes\)/);
  });
});
