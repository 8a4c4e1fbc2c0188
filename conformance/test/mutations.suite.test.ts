/**
 * The mutation self-test: the suite must fail every broken variant of the reference server on the
 * check meant to catch it, and must pass the unbroken one through the same handler.
 *
 * `--traffic` is proven the same way, from the recordings of those runs: the suite's own `--har` of
 * the unbroken server passes, and the recording of each broken variant whose fault shows in the
 * traffic fails from the recording alone, on the rule named in `traffic-variants.ts`. Every variant
 * is either caught or says why a recording cannot show its fault, so a new variant has to be
 * placed. A run is recorded once and judged both live and from its recording: running the suite
 * twice per variant was the slowest part of `npm test`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harText } from '../reporters/har.ts';
import { redactorFor } from '../core/redact.ts';
import { runSuite, runLive } from '../run/runner.ts';
import type { Report } from '../core/report-model.ts';
import { configFor, requiredFailures, resultOf, runCli } from './harness.ts';
import type { Mutation, MutationServer } from '../../tools/test-support/mutations.ts';
import { LEGAL_VARIANTS, MUTATIONS, startMutationServer } from '../../tools/test-support/mutations.ts';
import { CAUGHT, NOT_IN_TRAFFIC, rulesCatching } from './traffic-variants.ts';

let target: MutationServer;
let dir: string;

beforeAll(async () => {
  target = await startMutationServer();
  dir = mkdtempSync(join(tmpdir(), 'mutations-'));
});

afterAll(async () => {
  await target.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Recorded {
  report: Report;
  /** The run's traffic as `--har` writes it. */
  har: string;
}

const recordings = new Map<string, Promise<Recorded>>();

/**
 * One run of the suite against the variant, its report and its recording (written as the CLI's
 * `--har` writes it: `harText`, keys redacted); run once, whichever test asks first.
 */
function recorded(variant: Mutation | 'none', strict: boolean): Promise<Recorded> {
  const name = variant === 'none' ? 'none' : variant.name;
  const key = `${name}${strict ? ' strict' : ''}`;
  let recording = recordings.get(key);
  if (!recording) {
    recording = (async () => {
      const config = configFor(target.urlOf(variant), target.world.credentials, { strict });
      const { report, exchanges } = await runLive(config);
      const har = join(dir, `${key.replace(' ', '-')}.har`);
      writeFileSync(har, harText(exchanges, report, redactorFor(config.keys)));
      return { report, har };
    })();
    recordings.set(key, recording);
  }
  return recording;
}

/** The recording judged alone, as `--traffic` judges any deployment's. */
async function judged(variant: Mutation | 'none', strict: boolean) {
  const { har } = await recorded(variant, strict);
  return runCli(['--traffic', har, '--quiet', ...(strict ? ['--strict'] : [])]);
}

describe('mutation self-test', () => {
  it('passes the unbroken server behind the same handler, strict', async () => {
    const { report } = await recorded('none', true);
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
      const strict = mutation.strictOnly === true;
      const { report } = await recorded(mutation, strict);
      const result = resultOf(report, mutation.breaks);
      expect(result.status, `${result.id}: ${result.actual}`).toBe('fail');
      expect(report.summary.verdict).toBe('fail');
      // A misconfiguration fails its security category too: the security view says so.
      if (result.area === 'security')
        for (const id of result.owaspFailed ?? result.owasp ?? [])
          expect(report.security?.find((category) => category.id === id)?.status, id).toBe('fail');
      if (mutation.alone) {
        expect(requiredFailures(report).map((line) => line.split(':')[0])).toEqual([mutation.breaks]);
      }
      if (mutation.strictOnly) {
        const config = configFor(target.urlOf(mutation), target.world.credentials);
        const lenient = await runSuite(config);
        expect(resultOf(lenient, mutation.breaks).status).toBe('advisory');
        expect(requiredFailures(lenient)).toEqual([]);
      }
    });
  }
});

describe('recordings of broken servers judged with --traffic', () => {
  it('places every variant: caught from its recording, or why a recording cannot show it', () => {
    const unplaced = MUTATIONS.map((m) => m.name).filter((n) => !(n in CAUGHT) && !(n in NOT_IN_TRAFFIC));
    expect(unplaced).toEqual([]);
    expect(Object.keys(CAUGHT).filter((n) => n in NOT_IN_TRAFFIC)).toEqual([]);
  });

  it('passes the recording of the unbroken server, strict', async () => {
    const run = await judged('none', true);
    expect(run.status, run.stdout).toBe(0);
  });

  for (const mutation of MUTATIONS.filter((m) => m.name in CAUGHT)) {
    const rules = rulesCatching(mutation.name);
    it(`fails ${rules.join(', ')} from the recording when ${mutation.description} (${mutation.name})`, async () => {
      const run = await judged(mutation, mutation.strictOnly === true);
      expect(run.status, run.stdout).toBe(1);
      for (const rule of rules) expect(run.stdout).toContain(`✗ ${rule} [`);
    });
  }
});
