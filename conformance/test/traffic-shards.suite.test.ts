/**
 * A recording judged in shards (`--shard i/n`) and merged (`--merge`) gets exactly the verdict it
 * gets judged whole: every rule's class, findings, counts and evidence, the cross-exchange rules'
 * included, the drift and the coverage. Proven on the recordings of broken servers whose faults
 * only a cross-exchange rule sees, split three ways, in memory and with a state spilled to disk;
 * and every way shards cannot be merged is exit status 2, saying why.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harText } from '../reporters/har.ts';
import { redactorFor } from '../core/redact.ts';
import { runLive } from '../run/runner.ts';
import type { Report } from '../core/report-model.ts';
import { configFor, runCli } from './harness.ts';
import type { Mutation, MutationServer } from '../../tools/test-support/mutations.ts';
import { MUTATIONS, startMutationServer } from '../../tools/test-support/mutations.ts';
import { LIVE_SPEC_PATH } from '../../spec/facts.ts';
import { TOOL_NAME, VERSION } from '../core/tool.ts';

let target: MutationServer;
let dir: string;

beforeAll(async () => {
  target = await startMutationServer();
  dir = mkdtempSync(join(tmpdir(), 'traffic-shards-'));
});

afterAll(async () => {
  await target.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Faults a cross-exchange rule catches (pairs, holdings, page sizes, keyless requests; the attacker's
 * catalogue: existence told, links moved, two keys, caches), and none.
 */
const BROKEN = [
  'archived-walk-listed',
  'detail-name-differs',
  'count-off-by-one',
  'x-api-key-other-data',
  'other-campaign-lists-ours',
  'other-campaign-404-differs',
  'we-fetch-theirs',
  'limit-200-gives-10',
  'no-key-accepted',
  'revoked-key-accepted',
  'trailing-slash-unguarded',
  'rewrite-header-routed',
  'head-unguarded',
  'forwarded-host-in-links',
  'two-keys-split-roles',
  'refusal-cached-per-campaign',
];

const mutation = (name: string): Mutation => {
  const found = MUTATIONS.find((m) => m.name === name);
  if (!found) throw new Error(`no mutation ${name}`);
  return found;
};

/** The suite's own recording of a run against a variant, as `--har` writes it. */
async function recordingOf(variant: Mutation | 'none'): Promise<string> {
  const name = variant === 'none' ? 'none' : variant.name;
  const config = configFor(target.urlOf(variant), target.world.credentials);
  const { report, exchanges } = await runLive(config);
  const har = join(dir, `${name}.har`);
  writeFileSync(har, harText(exchanges, report, redactorFor(config.keys)));
  return har;
}

/** A JSON report as two runs of one recording must agree on it: everything but when and how long. */
function verdictIn(path: string): Omit<Report, 'startedAt' | 'durationMs'> {
  const { startedAt: _at, durationMs: _ms, ...rest } = JSON.parse(readFileSync(path, 'utf8')) as Report;
  return rest;
}

/** Judges a recording whole, and in `n` shards merged; both verdicts and exit statuses. */
async function wholeAndMerged(har: string, n: number, extra: string[] = []) {
  const name = har.replace(/\.har$/, '');
  const whole = await runCli([
    '--traffic',
    har,
    ...extra,
    '--reporter',
    'json',
    '--output',
    `${name}.whole.json`,
  ]);
  const shards: string[] = [];
  for (let i = 1; i <= n; i++) {
    const output = `${name}.shard-${i}.json`;
    const run = await runCli(['--traffic', har, '--shard', `${i}/${n}`, ...extra, '--output', output]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`shard ${i}/${n}`);
    shards.push(output);
  }
  const merged = await runCli([
    '--merge',
    ...shards,
    ...extra,
    '--reporter',
    'json',
    '--output',
    `${name}.merged.json`,
  ]);
  return {
    whole,
    merged,
    shards,
    verdicts: [verdictIn(`${name}.whole.json`), verdictIn(`${name}.merged.json`)],
  };
}

describe('a recording judged in shards and merged', () => {
  for (const name of ['none', ...BROKEN]) {
    it(`gets the verdict it gets judged whole (${name})`, async () => {
      const har = await recordingOf(name === 'none' ? 'none' : mutation(name));
      const { whole, merged, verdicts } = await wholeAndMerged(har, 3);
      const [judgedWhole, judgedMerged] = verdicts;
      expect(merged.status, merged.stderr).toBe(whole.status);
      expect(judgedMerged).toEqual(judgedWhole);
      if (name !== 'none') {
        const broken = mutation(name).breaks;
        expect(judgedWhole?.results.find((r) => r.id === broken)?.status).toBe('fail');
      }
    });
  }

  for (const name of ['other-campaign-lists-ours', 'head-unguarded', 'two-keys-split-roles']) {
    it(`gets the same verdict with every shard spilling its state to disk (${name})`, async () => {
      const har = await recordingOf(mutation(name));
      const { verdicts } = await wholeAndMerged(har, 2, ['--traffic-memory', '1MB']);
      expect(verdicts[1]).toEqual(verdicts[0]);
      expect(verdicts[0]?.results.find((r) => r.id === mutation(name).breaks)?.status).toBe('fail');
    });
  }
});

describe('shards that cannot be merged', () => {
  let shards: string[];
  let har: string;

  beforeAll(async () => {
    har = await recordingOf(mutation('count-off-by-one'));
    shards = [];
    for (const i of [1, 2]) {
      const output = join(dir, `split-${i}.json`);
      await runCli(['--traffic', har, '--shard', `${i}/2`, '--output', output]);
      shards.push(output);
    }
  });

  const refused = async (argv: string[], why: RegExp) => {
    const run = await runCli(argv);
    expect(run.status, run.stdout).toBe(2);
    expect(run.stderr).toMatch(why);
    expect(run.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
  };

  it('refuses a shard that does not exist, and --shard without --traffic', async () => {
    await refused(['--traffic', har, '--shard', '3/2'], /--shard 3\/2: there is no shard 3 of 2/);
    await refused(['--traffic', har, '--shard', '0/2'], /there is no shard 0 of 2/);
    await refused(['--traffic', har, '--shard', 'half'], /--shard must be I\/N/);
    await refused(
      ['--shard', '1/2', '--base-url', target.urlOf('none')],
      /--shard applies to --traffic only/,
    );
    await refused(
      ['--traffic', har, '--shard', '1/2', '--reporter', 'html'],
      /--reporter html is the merged run's/,
    );
  });

  it('refuses a shard missing or given twice', async () => {
    await refused(['--merge', shards[0] as string], /shard 2\/2 missing/);
    await refused(['--merge', shards[0] as string, shards[0] as string], /shard 1\/2 given twice/);
  });

  it('refuses shards judged by another spec, or by other rules', async () => {
    const spec = join(dir, 'openapi-copy.yaml');
    copyFileSync(LIVE_SPEC_PATH, spec);
    writeFileSync(spec, `${readFileSync(spec, 'utf8')}\n# another spec, for this test\n`);
    const other = join(dir, 'other-spec-2.json');
    await runCli(['--traffic', har, '--shard', '2/2', '--spec', spec, '--output', other]);
    await refused(['--merge', shards[0] as string, other], /judged by another spec .*sha256/);
    const fewer = join(dir, 'fewer-rules-2.json');
    await runCli(['--traffic', har, '--shard', '2/2', '--skip', 'AUTH', '--output', fewer]);
    await refused(['--merge', shards[0] as string, fewer], /judged by other rules/);
  });

  it('refuses a shard judged by another version of the rules, naming the version', async () => {
    const text = readFileSync(shards[1] as string, 'utf8');
    const ours = JSON.stringify({ name: TOOL_NAME, version: VERSION });
    expect(text).toContain(`"head":{"suite":${ours},`);
    const older = join(dir, 'older-2.json');
    writeFileSync(older, text.replace(ours, JSON.stringify({ name: TOOL_NAME, version: '0.9.0' })));
    await refused(
      ['--merge', shards[0] as string, older],
      new RegExp(
        `older-2\\.json \\(shard 2/2\\) judged by the rules of ${TOOL_NAME} 0\\.9\\.0, this merge by those of ${TOOL_NAME} ${VERSION.replaceAll('.', '\\.')}`,
      ),
    );
    const unnamed = join(dir, 'unnamed-2.json');
    writeFileSync(unnamed, text.replace(`"suite":${ours},`, ''));
    await refused(['--merge', shards[0] as string, unnamed], /unnamed-2\.json .*an earlier version/);
  });

  it('refuses a file that is no shard result, or is cut short, naming it and the line', async () => {
    const report = join(dir, 'a-report.json');
    await runCli(['--traffic', har, '--reporter', 'json', '--output', report, '--quiet']);
    await refused(['--merge', shards[0] as string, report], /a-report\.json: line 1: not a shard result/);
    const cut = join(dir, 'cut-2.json');
    const text = readFileSync(shards[1] as string, 'utf8');
    writeFileSync(cut, text.slice(0, Math.floor(text.length * 0.9)));
    await refused(['--merge', shards[0] as string, cut], /cut-2\.json: line \d+: /);
    await refused(['--merge', join(dir, 'no-such-file.json')], /no-such-file\.json/);
  });
});
