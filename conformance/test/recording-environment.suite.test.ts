/**
 * A recording is judged alike whatever the shell exports: with the demo keys exported as the docs
 * say (their web base URL with them), a recording of another deployment keeps its verdict and its
 * exit status; the keys may let more rules be judged, but none judged without them changes its
 * status, and none becomes not judged. The web base URL a recording is held to is the one
 * `--web-base-url` gives.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/cli.ts';
import type { Report } from '../core/report-model.ts';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';

const STAGING_WEB = 'https://dashboard.staging.example';
let dir: string;
let staging: RunningServer;
/** The demo keys as `--print-credentials` gives them, for the default demo deployment. */
let demo: Record<string, string>;
let recording: string;

async function cli(argv: string[], env: Record<string, string>): Promise<{ status: number; report: Report }> {
  const output = join(dir, `r${Math.random().toString(36).slice(2)}.json`);
  const status = await main([...argv, '--reporter', 'json', '--output', output], env, {
    stdout: () => undefined,
    stderr: () => undefined,
  });
  return { status, report: JSON.parse(readFileSync(output, 'utf8')) as Report };
}

const statuses = (report: Report) => new Map(report.results.map((r) => [r.id, r.status]));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'conformance-recording-env-'));
  staging = await startReferenceServer({ port: 0, log: false, webBaseUrl: STAGING_WEB });
  const defaults = await startReferenceServer({ port: 0, log: false });
  demo = { ...defaults.credentials };
  await defaults.close();
  recording = join(dir, 'staging.har');
  const live = await cli(['--har', recording], {
    ...staging.credentials,
    CONFORMANCE_BASE_URL: staging.baseUrl,
  });
  expect(live.status).toBe(0);
}, 600_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await staging.close();
});

describe('a recording judged with the demo keys exported', () => {
  it('keeps its verdict and exit status, and no rule judged without them changes or goes unjudged', async () => {
    expect(demo.CONFORMANCE_WEB_BASE_URL).toBeDefined();
    expect(demo.CONFORMANCE_WEB_BASE_URL).not.toBe(STAGING_WEB);
    const bare = await cli(['--traffic', recording], {});
    const exported = await cli(['--traffic', recording], demo);
    expect(bare.status).toBe(0);
    expect(exported.status).toBe(bare.status);
    expect(exported.report.summary.verdict).toBe(bare.report.summary.verdict);
    const after = statuses(exported.report);
    for (const [id, status] of statuses(bare.report)) {
      if (status === 'skip') continue;
      expect({ id, status: after.get(id) }).toEqual({ id, status });
    }
  }, 300_000);

  it('is held to the web base URL --web-base-url gives: another one fails WALKS-LIST-010', async () => {
    const wrong = await cli(['--traffic', recording, '--web-base-url', 'https://elsewhere.example'], demo);
    expect(wrong.status).toBe(1);
    expect(statuses(wrong.report).get('WALKS-LIST-010')).toBe('fail');
    const right = await cli(['--traffic', recording, '--web-base-url', STAGING_WEB], demo);
    expect(right.status).toBe(0);
    expect(statuses(right.report).get('WALKS-LIST-010')).toBe('pass');
  }, 300_000);
});
