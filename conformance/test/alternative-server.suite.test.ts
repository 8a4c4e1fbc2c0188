/**
 * The suite is not tuned to the reference server: a different correct implementation, deciding every
 * "not shown" point otherwise, passes (advisories allowed, no required failure), in strict mode too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSuite } from '../run/runner.ts';
import type { Report } from '../core/report-model.ts';
import type { AlternativeServer } from './alternative-server.ts';
import { startAlternativeServer } from './alternative-server.ts';
import { configFor, requiredFailures, resultOf } from './harness.ts';

let server: AlternativeServer;
let live: Report;

beforeAll(async () => {
  server = await startAlternativeServer();
  live = await runSuite(configFor(server.baseUrl, server.credentials));
});

afterAll(async () => {
  await server.close();
});

describe('a different correct server', () => {
  it('passes every required check', () => {
    expect(requiredFailures(live)).toEqual([]);
    expect(live.summary.verdict).toBe('pass');
  });

  it('passes in strict mode too: its other choices are all documented statuses and fields', async () => {
    const strict = await runSuite(configFor(server.baseUrl, server.credentials, { strict: true }));
    expect(requiredFailures(strict)).toEqual([]);
  });

  it('reports its different choices as advisory', () => {
    expect(resultOf(live, 'AUTH-006').actual).toContain('403 invalid_key');
    expect(resultOf(live, 'AUTH-008').actual).toContain('400 malformed_credentials');
    expect(resultOf(live, 'LIMITS-009').actual).toContain('limit=201 → 200 (75 items)');
    expect(resultOf(live, 'AUTH-012').actual).toContain('prefers x-api-key');
    expect(resultOf(live, 'NOT-FOUND-003').actual).toContain('400 invalid_id');
    expect(resultOf(live, 'WALK-DETAIL-007').actual).toMatch(
      /^0 of \d+ stop ids are UUIDs; [1-9]\d* stops have one coordinate only/,
    );
    expect(resultOf(live, 'WALKS-LIST-013').actual).toContain('https://field.other-canvass.example/app');
    expect(resultOf(live, 'ENVELOPE-010').actual).toMatch(
      /^identity \(not compressed\): \d+ bytes; Vary: \(none\)/,
    );
  });

  it('judges the clamped limits as bounded successes', () => {
    for (const id of ['LIMITS-001', 'LIMITS-003', 'LIMITS-005', 'LIMITS-008']) {
      expect(resultOf(live, id).status).toBe('pass');
      expect(resultOf(live, id).judged?.records).toBeGreaterThan(0);
    }
  });

  it('checks the configured web base URL, path included', () => {
    expect(resultOf(live, 'WALKS-LIST-010').status).toBe('pass');
  });
});
