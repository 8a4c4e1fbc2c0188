/** The suite against the reference server: every required check holds, live and strict. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../reference-server/start.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import { HttpClient } from '../transport/client.ts';
import { RULES } from '../rules/registry.ts';
import { LiveWorld } from '../run/world.ts';
import { runSuite, specModelFor } from '../run/runner.ts';
import type { Report } from '../core/report-model.ts';
import { configFor, requiredFailures } from './harness.ts';

let server: RunningServer;
let live: Report;
let strict: Report;

beforeAll(async () => {
  server = await startReferenceServer({ port: 0, log: false });
  live = await runSuite(configFor(server.baseUrl, server.credentials));
  strict = await runSuite(configFor(server.baseUrl, server.credentials, { strict: true }));
});

afterAll(async () => {
  await server.close();
});

/** A rule no operation of the spec calls for (cursor pages, when no live operation pages): the one skip. */
const noOperation = /^no operation of the spec, and no answer of the run, that this rule judges$/;
const applies = (r: Report['results'][number]) => !(r.status === 'skip' && noOperation.test(r.reason ?? ''));

describe('the suite against the reference server', () => {
  it('passes every required check in live mode', () => {
    expect(requiredFailures(live)).toEqual([]);
    expect(live.summary.verdict).toBe('pass');
  });

  it('passes every required check in strict mode, drift included', () => {
    expect(requiredFailures(strict)).toEqual([]);
    expect(strict.results.filter((r) => r.drift).map((r) => [r.id, r.status])).toEqual([
      ['DRIFT-001', 'pass'],
      ['DRIFT-002', 'pass'],
      ['DRIFT-003', 'pass'],
    ]);
  });

  it('runs every check with the demo data set: nothing skipped or not judged', () => {
    const notRun = live.results.filter(
      (r) => applies(r) && (r.status === 'skip' || r.status === 'not-judged'),
    );
    expect(notRun.map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
    expect(live.results).toHaveLength(RULES.length);
  });

  it('reports advisory checks as advisory, never as pass or fail', () => {
    const advisory = live.results.filter((r) => r.level === 'advisory' && !r.drift && applies(r));
    expect(advisory.length).toBeGreaterThan(0);
    expect(advisory.filter((r) => r.status !== 'advisory').map((r) => r.id)).toEqual([]);
  });

  it('stays within the request budget', () => {
    // The engine's budget with only the walks endpoints live: the key matrix, near misses, the
    // attacker's catalogue's default entries, the planned endpoints and every sweep.
    expect(live.requests.sent).toBeLessThanOrEqual(700);
    expect(live.requests.memoized).toBeGreaterThan(0);
  });

  it('samples the empty walk and the walk without coordinates first, then a handful spread out', async () => {
    const config = { ...configFor(server.baseUrl, server.credentials), sample: 8 };
    const spec = specModelFor();
    const world = new LiveWorld(spec, config);
    const client = new HttpClient(config);
    try {
      for (const { op, campaign, request } of world.discoveryRequests()) {
        world.learn(op, campaign, await client.send(request));
      }
      const walks = spec.operation('getWalk');
      const summaries = new Map(
        world.listed(spec.operation('listWalks'), 'primary').map((w) => [w.id, w.summary]),
      );
      const sample = world.sweep(walks, 'primary').map((id) => summaries.get(id));
      expect(sample).toHaveLength(8);
      expect(sample[0]?.count).toBe(0);
      expect(sample[1]?.count).toBeGreaterThan(0);
      expect(sample[1]?.lat).toBeNull();
      expect(new Set(sample.map((w) => w?.id)).size).toBe(sample.length);
      expect(world.sampled).toEqual({ n: 8, of: 200 });
      // The three campaign keys' largest pages, and nothing else: the sample is drawn from them.
      expect(client.sent).toBe(3);
    } finally {
      await client.close();
    }
  });
});
