/**
 * `--traffic` proven like the live checks: the suite's own `--har` recording of a run against the
 * unbroken server passes, and the recording of a run against each broken variant of the mutation
 * self-test whose fault shows in the traffic fails from the recording alone, on the rule named
 * here. Every variant is either caught or says why a recording cannot show its fault, so a new
 * variant has to be placed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './harness.ts';
import type { Mutation, MutationServer } from '../../test-support/mutations.ts';
import { MUTATIONS, startMutationServer } from '../../test-support/mutations.ts';
import { CAUGHT, NOT_IN_TRAFFIC, rulesCatching } from './traffic-variants.ts';

let target: MutationServer;
let dir: string;

beforeAll(async () => {
  target = await startMutationServer();
  dir = mkdtempSync(join(tmpdir(), 'traffic-mutations-'));
});

afterAll(async () => {
  await target.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Records a run of the suite against the variant with `--har`, then judges the recording alone. */
async function recordAndJudge(variant: Mutation | 'none', strict: boolean) {
  const file = join(dir, `${variant === 'none' ? 'none' : variant.name}.har`);
  const strictFlag = strict ? ['--strict'] : [];
  await runCli(['--base-url', target.urlOf(variant), '--har', file, '--quiet', ...strictFlag], {
    ...target.world.credentials,
  });
  return runCli(['--traffic', file, '--quiet', ...strictFlag]);
}

describe('recordings of broken servers judged with --traffic', () => {
  it('places every variant: caught from its recording, or why a recording cannot show it', () => {
    const unplaced = MUTATIONS.map((m) => m.name).filter((n) => !(n in CAUGHT) && !(n in NOT_IN_TRAFFIC));
    expect(unplaced).toEqual([]);
    expect(Object.keys(CAUGHT).filter((n) => n in NOT_IN_TRAFFIC)).toEqual([]);
  });

  it('passes the recording of the unbroken server, strict', async () => {
    const run = await recordAndJudge('none', true);
    expect(run.status, run.stdout).toBe(0);
  });

  for (const mutation of MUTATIONS.filter((m) => m.name in CAUGHT)) {
    const rules = rulesCatching(mutation.name);
    it(`fails ${rules.join(', ')} from the recording when ${mutation.description} (${mutation.name})`, async () => {
      const run = await recordAndJudge(mutation, mutation.strictOnly === true);
      expect(run.status, run.stdout).toBe(1);
      for (const rule of rules) expect(run.stdout).toContain(`✗ ${rule} [`);
    });
  }
});
