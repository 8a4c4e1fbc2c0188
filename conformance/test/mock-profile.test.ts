/**
 * `--profile mock` against a real Prism mock of spec/openapi.yaml: checks needing real data or keys
 * are skipped as not applicable, the others run (some through `Prefer`), and the run passes.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_SPEC_PATH } from '../../spec/contract.ts';
import { runSuite } from '../runner.ts';
import type { Report } from '../types.ts';
import { configFor, listen, requiredFailures, resultOf } from './harness.ts';

let prism: ChildProcess;
let baseUrl: string;
let report: Report;

async function freePort(): Promise<number> {
  const probe = await listen(() => undefined);
  await probe.close();
  return Number(new URL(probe.baseUrl).port);
}

/** Prism takes a few seconds to start: poll until it answers, for at most 30 s. */
async function waitForPrism(url: string): Promise<void> {
  for (let attempt = 0; attempt < 150; attempt++) {
    if (prism.exitCode !== null) throw new Error(`prism exited with ${prism.exitCode}`);
    try {
      await fetch(`${url}/api/v1/walks`, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await sleep(200);
    }
  }
  throw new Error('prism did not answer within 30 s');
}

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  prism = spawn(
    'node_modules/.bin/prism',
    ['mock', LIVE_SPEC_PATH, '--errors', '-h', '127.0.0.1', '-p', String(port)],
    {
      stdio: 'ignore',
    },
  );
  await waitForPrism(baseUrl);
  report = await runSuite(configFor(baseUrl, {}, { profile: 'mock', strict: true }));
}, 60_000);

afterAll(async () => {
  if (prism.exitCode === null) {
    const exited = new Promise((resolve) => prism.once('exit', resolve));
    prism.kill('SIGTERM');
    await exited;
  }
});

describe('--profile mock against Prism', () => {
  it('passes, strict', () => {
    expect(requiredFailures(report)).toEqual([]);
    expect(report.summary.verdict).toBe('pass');
  });

  it('runs the checks the mock can honour, some of them through Prefer', () => {
    for (const id of [
      'WALKS-LIST-001',
      'WALKS-LIST-007',
      'WALKS-LIST-008',
      'WALKS-LIST-011',
      'WALK-DETAIL-004',
      'CONSISTENCY-003',
      'AUTH-003',
      'AUTH-011',
      'NOT-FOUND-001',
      'LIMITS-001',
      'DRIFT-001',
    ]) {
      expect(resultOf(report, id).status, id).toBe('pass');
    }
    expect(resultOf(report, 'AUTH-011').request?.headers.Prefer).toBe('code=403');
    expect(resultOf(report, 'NOT-FOUND-001').request?.headers.Prefer).toBe('code=404');
  });

  it('marks the checks that need real data or real keys as not applicable', () => {
    for (const id of [
      'WALKS-LIST-002',
      'WALKS-LIST-003',
      'AUTH-005',
      'AUTH-009',
      'ISOLATION-001',
      'NOT-FOUND-002',
      'METHODS-001',
    ]) {
      expect(resultOf(report, id).status, id).toBe('skip');
      expect(resultOf(report, id).reason).toMatch(/^not applicable to the mock: /);
    }
  });
});
