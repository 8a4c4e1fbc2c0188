/**
 * Nothing hides outside the sample: deployments that are wrong only somewhere a sample
 * would not look turn the CLI's run red with the requirement that names the fault, and correct
 * deployments that choose differently stay green — each through the real command line.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../../fixtures/index.ts';
import type { Report } from '../core/report-model.ts';
import { startAlternativeServer } from './alternative-server.ts';
import { requiredFailures, runCli } from './harness.ts';
import { startSweepTarget } from './sweep-proxy.ts';
import { CORRECT, FAULTS, sphericalPlanarGap } from './sweep-variants.ts';

const dir = mkdtempSync(join(tmpdir(), 'sweep-proof-'));

/** The walks the sweeps fetch: the primary campaign's largest page (200), and the other campaign's walks. */
const PRIMARY_LISTED = 200;
const OTHER_LISTED = (() => {
  const dataset = generateDataset();
  const other = dataset.campaigns[1]?.id;
  return dataset.walks.filter((w) => w.campaignId === other && w.state === 'active').length;
})();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
/** Runs the CLI against a base URL with its credentials; the JSON report comes back with the status. */
async function judge(
  baseUrl: string,
  credentials: Record<string, string>,
  flags: string[] = [],
): Promise<{ status: number; stdout: string; report: Report }> {
  const output = join(dir, `run-${++runs}.json`);
  const run = await runCli(['--base-url', baseUrl, '--reporter', 'json', '--output', output, ...flags], {
    ...credentials,
  });
  return {
    status: run.status,
    stdout: run.stdout,
    report: JSON.parse(readFileSync(output, 'utf8')) as Report,
  };
}

describe('faults a sample would miss turn the run red', () => {
  for (const fault of FAULTS) {
    it(`${fault.name}: ${fault.description} → ${fault.breaks}`, { timeout: 60_000 }, async () => {
      const target = await startSweepTarget(fault.variant, fault.options);
      try {
        const { status, report } = await judge(target.baseUrl, target.credentials);
        const failing = report.results.filter((r) => r.status === 'fail').map((r) => r.id);
        expect(status, failing.join(', ')).toBe(1);
        expect(failing).toContain(fault.breaks);
      } finally {
        await target.close();
      }
    });
  }

  it('names the walk a one-record fault sits in', { timeout: 60_000 }, async () => {
    const fault = FAULTS.find((f) => f.name === 'swapped-coordinates');
    if (!fault) throw new Error('no swapped-coordinates case');
    const target = await startSweepTarget(fault.variant);
    try {
      const { report } = await judge(target.baseUrl, target.credentials);
      const result = report.results.find((r) => r.id === 'CONSISTENCY-003');
      expect(result?.status).toBe('fail');
      expect(result?.actual).toMatch(/^walk [0-9a-f-]{36}: lat\/lng /);
      expect(result?.actual).not.toContain('more)');
    } finally {
      await target.close();
    }
  });
});

describe('correct deployments that choose differently stay green', () => {
  for (const correct of CORRECT) {
    it(`${correct.name}: ${correct.description}`, { timeout: 60_000 }, async () => {
      const target = await startSweepTarget(correct.variant, correct.options);
      try {
        const { status, report } = await judge(target.baseUrl, target.credentials);
        expect(requiredFailures(report)).toEqual([]);
        expect(status).toBe(0);
      } finally {
        await target.close();
      }
    });
  }

  it('the spherical case is one a 1e-6° tolerance around the planar mean would have failed', () => {
    expect(sphericalPlanarGap(40)).toBeGreaterThan(1e-6);
  });

  it('another implementation with other legal choices on the open points', { timeout: 60_000 }, async () => {
    const server = await startAlternativeServer();
    try {
      const { status, report } = await judge(server.baseUrl, server.credentials);
      expect(requiredFailures(report)).toEqual([]);
      expect(status).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('coverage and --sample', () => {
  it(
    'judges every listed walk by default and says what each requirement judged',
    { timeout: 60_000 },
    async () => {
      const target = await startSweepTarget({});
      try {
        const { report } = await judge(target.baseUrl, target.credentials);
        const judged = (id: string) => report.coverage?.requirements.find((r) => r.id === id);
        expect(report.coverage?.seed).toBe(20261124);
        expect(report.coverage?.sampled).toBeUndefined();
        expect(judged('CONSISTENCY-003')).toMatchObject({
          records: PRIMARY_LISTED + OTHER_LISTED,
          unit: 'walks',
        });
        // Every walk of each campaign asked with the other's key, and a few with the empty campaign's.
        expect(judged('ISOLATION-002')?.unit).toBe('items');
        expect(judged('ISOLATION-002')?.records).toBeGreaterThanOrEqual(PRIMARY_LISTED + OTHER_LISTED);
        expect(judged('COLLECTION-008')?.records).toBeGreaterThanOrEqual(11);
        const detail = report.coverage?.operations.find((o) => o.operationId === 'getWalk');
        expect(detail?.statuses.find((s) => s.status === '404')?.observed).toBeGreaterThan(200);
      } finally {
        await target.close();
      }
    },
  );

  it(
    '--sample N judges N walks per sweep, chosen by the seed, and says "sampled N of M"',
    { timeout: 60_000 },
    async () => {
      const target = await startSweepTarget({});
      try {
        const sampled = await judge(target.baseUrl, target.credentials, ['--sample', '12', '--seed', '7']);
        const again = await judge(target.baseUrl, target.credentials, ['--sample', '12', '--seed', '7']);
        expect(sampled.status).toBe(0);
        expect(sampled.report.coverage?.sampled).toEqual({ n: 12, of: 200 });
        expect(sampled.stdout).toContain('sampled 12 of 200');
        // Twelve per sweep: of the primary campaign's walks, and of the other campaign's.
        const judged = (report: Report) => report.results.find((r) => r.id === 'CONSISTENCY-003')?.judged;
        const all = PRIMARY_LISTED + OTHER_LISTED;
        expect(judged(sampled.report)).toMatchObject({ records: 24, of: all });
        expect(
          sampled.report.coverage?.gaps.some(
            (g) => g.startsWith('CONSISTENCY-003') && g.includes(`24 of ${all}`),
          ),
        ).toBe(true);
        expect(again.report.requests.sent).toBe(sampled.report.requests.sent);
      } finally {
        await target.close();
      }
    },
  );

  it('says what it could not cover without the second campaign key', { timeout: 60_000 }, async () => {
    const target = await startSweepTarget({});
    try {
      const { CONFORMANCE_OTHER_CAMPAIGN_KEY: _, ...rest } = target.credentials;
      const { status, report } = await judge(target.baseUrl, rest);
      expect(status).toBe(0);
      expect(report.coverage?.gaps).toContainEqual(
        expect.stringMatching(
          /^ISOLATION-002 \(isolation\): set CONFORMANCE_OTHER_CAMPAIGN_KEY.* → skipped$/,
        ),
      );
    } finally {
      await target.close();
    }
  });
});
