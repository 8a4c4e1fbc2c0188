/**
 * The mutation self-test: the suite must fail every broken variant of the reference server on the
 * check meant to catch it, and must pass the unbroken one through the same handler.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSuite } from '../runner.ts';
import { configFor, requiredFailures, resultOf } from './harness.ts';
import type { MutationServer } from '../../test-support/mutations.ts';
import { LEGAL_VARIANTS, MUTATIONS, startMutationServer } from '../../test-support/mutations.ts';

let target: MutationServer;

beforeAll(async () => {
  target = await startMutationServer();
});

afterAll(async () => {
  await target.close();
});

describe('mutation self-test', () => {
  it('passes the unbroken server behind the same handler, strict', async () => {
    const report = await runSuite(
      configFor(target.urlOf('none'), target.world.credentials, { strict: true }),
    );
    expect(requiredFailures(report)).toEqual([]);
  });

  for (const legal of LEGAL_VARIANTS) {
    it(`passes a deployment where ${legal.description} (${legal.name}): no false alarm`, async () => {
      const report = await runSuite(configFor(target.urlOf(legal), target.world.credentials));
      expect(requiredFailures(report)).toEqual([]);
    });
  }

  for (const mutation of MUTATIONS) {
    it(`fails ${mutation.breaks} when ${mutation.description} (${mutation.name})`, async () => {
      const config = configFor(target.urlOf(mutation), target.world.credentials, {
        strict: mutation.strictOnly === true,
      });
      const report = await runSuite(config);
      const result = resultOf(report, mutation.breaks);
      expect(result.status, `${result.id}: ${result.actual}`).toBe('fail');
      expect(report.summary.verdict).toBe('fail');
      if (mutation.alone) {
        expect(requiredFailures(report).map((line) => line.split(':')[0])).toEqual([mutation.breaks]);
      }
      if (mutation.strictOnly) {
        const lenient = await runSuite({ ...config, strict: false });
        expect(resultOf(lenient, mutation.breaks).status).toBe('advisory');
        expect(requiredFailures(lenient)).toEqual([]);
      }
    });
  }
});
