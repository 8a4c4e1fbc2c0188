/**
 * `--profile mock` against a real Prism mock of spec/openapi.yaml: checks needing real data or keys
 * are skipped as not applicable, the others run (some through `Prefer`), and the run passes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../command-line/free-port.ts';
import { type RunningPrism, startPrism } from '../../mock/prism.ts';
import { runSuite } from '../run/runner.ts';
import { resolveTarget } from '../run/target.ts';
import type { Report } from '../core/report-model.ts';
import { configFor, requiredFailures, resultOf, runCli } from './harness.ts';

let prism: RunningPrism | undefined;
let report: Report;

beforeAll(async () => {
  // The same launcher and flags as `npm run mock` (--errors, --cors=false), on a free port.
  prism = await startPrism({ host: '127.0.0.1', port: await freePort('127.0.0.1'), logLevel: 'warn' });
  // Through the target, as the CLI goes: it gives the mock its placeholder keys.
  const target = await resolveTarget(configFor(prism.baseUrl, {}, { profile: 'mock', strict: true }));
  report = await runSuite(target.config);
}, 60_000);

afterAll(async () => {
  await prism?.stop();
});

describe('--profile mock against Prism', () => {
  it('passes, strict', () => {
    expect(requiredFailures(report)).toEqual([]);
    expect(report.summary.verdict).toBe('pass');
  });

  it('runs the checks the mock can honour, some of them through Prefer', () => {
    for (const id of [
      'COLLECTION-001',
      'WALKS-LIST-007',
      'WALKS-LIST-008',
      'COLLECTION-006',
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

  it('checks the mock as npm run mock serves it: no CORS grant (--cors=false)', () => {
    expect(resultOf(report, 'ENVELOPE-008').actual).toBe('no Access-Control-Allow-Origin');
  });

  it('marks the checks that need real data or real keys as not applicable', () => {
    for (const id of [
      'COLLECTION-002',
      'COLLECTION-003',
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

describe('--profile mock reports', () => {
  it('print the title, the package names and the curl lines intact, whatever key is given', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mock-reports-'));
    try {
      const junit = join(dir, 'junit.xml');
      const run = await runCli(
        ['--base-url', prism?.baseUrl ?? '', '--profile', 'mock', '--reporter', 'junit', '--output', junit],
        { CONFORMANCE_API_KEY: 'any-key-at-all' },
      );
      const xml = await readFile(junit, 'utf8');
      expect(run.status).toBe(0);
      for (const text of [run.stdout, xml]) {
        expect(text).not.toMatch(/\$\$/);
        expect(text).toContain('conformance');
      }
      // The placeholders are public words, printed as they are; the key given is redacted.
      expect(run.stdout + xml).not.toContain('any-key-at-all');
      expect(xml).not.toMatch(/\$CONFORMANCE_[A-Z_]*_KEY_[A-Z]/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
