/**
 * `--compare PREVIOUS.json`: what changed since a previous JSON report — newly failing, newly
 * passing, new or changed advisories, new and gone drift — in the console and in every report; a
 * file that is not a previous report is unusable configuration (exit 2).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../core/report-model.ts';
import { runCli } from './harness.ts';
import type { MutationServer } from '../../tools/test-support/mutations.ts';
import { MUTATIONS, startMutationServer } from '../../tools/test-support/mutations.ts';

let dir: string;
let variants: MutationServer;
const previous: Record<string, string> = {};

const cli = (argv: string[]) => runCli(argv, { ...variants.world.credentials });

const urlOf = (name: string) => {
  if (name === 'none') return variants.urlOf('none');
  const mutation = MUTATIONS.find((m) => m.name === name);
  if (!mutation) throw new Error(`no variant ${name}`);
  return variants.urlOf(mutation);
};

/** Runs against a variant, comparing with a previous report; returns the output and the JSON report. */
async function compare(variant: string, since: string, reporters = 'json') {
  const out = join(dir, `${variant}-since-${since}`);
  const files = reporters.split(',').map((name) => `${out}.${name}`);
  const run = await cli([
    '--base-url',
    urlOf(variant),
    '--compare',
    previous[since] ?? since,
    '--reporter',
    reporters,
    ...files.flatMap((f) => ['--output', f]),
  ]);
  const report = JSON.parse(readFileSync(`${out}.json`, 'utf8')) as Report;
  const text = (name: string) => readFileSync(`${out}.${name}`, 'utf8');
  return { run, report, text };
}

const failing = (report: Report) => report.results.filter((r) => r.status === 'fail').map((r) => r.id);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'conformance-compare-'));
  variants = await startMutationServer();
  for (const variant of ['none', 'limit-1-gives-2', 'undocumented-status']) {
    previous[variant] = join(dir, `${variant}.json`);
    await cli(['--base-url', urlOf(variant), '--reporter', 'json', '--output', previous[variant]]);
  }
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await variants.close();
});

describe('--compare', () => {
  it('lists what newly fails, in the console and in the JSON, JUnit and HTML reports', async () => {
    const { run, report, text } = await compare('limit-1-gives-2', 'none', 'json,junit,html');
    expect(run.status).toBe(1);
    expect(failing(report)).toContain('COLLECTION-003');
    expect(report.comparison?.newlyFailing.map((c) => c.id)).toEqual(failing(report));
    expect(report.comparison?.newlyFailing[0]).toMatchObject({ was: 'pass', now: 'fail' });
    expect(report.comparison?.previous.file).toBe(previous.none);
    expect(run.stdout).toContain(`SINCE ${previous.none} (`);
    expect(run.stdout).toMatch(
      / {2}newly failing:\n {4}COLLECTION-003 A limit at its minimum returns exactly that many items: GET \S+limit=1: 2 items, more than the 1 asked \(was pass\)/,
    );
    expect(text('junit')).toMatch(
      /<testsuite name="comparison"[^>]*>\s*<properties\/>\s*<system-out>SINCE [^<]*newly failing:/,
    );
    expect(text('html')).toContain('<h3>Newly failing (');
  });

  it('lists what newly passes', async () => {
    const before = JSON.parse(readFileSync(previous['limit-1-gives-2'] ?? '', 'utf8')) as Report;
    const { run, report } = await compare('none', 'limit-1-gives-2');
    expect(run.status).toBe(0);
    expect(report.comparison?.newlyPassing.map((c) => c.id)).toEqual(failing(before));
    expect(report.comparison?.newlyFailing).toEqual([]);
    expect(run.stdout).toContain('  newly passing:\n    COLLECTION-003 ');
  });

  it('lists new advisories, changed answers to advisory checks and new drift', async () => {
    const { run, report } = await compare('undocumented-status', 'none');
    const advisories = report.comparison?.newAdvisories ?? [];
    expect(advisories.find((a) => a.id === 'NOT-FOUND-003')).toMatchObject({
      was: 'advisory',
      wasActual: 'this deployment answers 404 not_found',
      actual: 'this deployment answers 422 invalid_id',
    });
    expect(advisories.find((a) => a.id === 'DRIFT-002')).toMatchObject({ was: 'pass', now: 'advisory' });
    expect(report.comparison?.newDrift.map((f) => `${f.operationId} ${f.status} ${f.kind}`)).toContain(
      'getWalk 422 status',
    );
    expect(run.stdout).toContain('  new drift:\n    getWalk 422 status: not documented for this operation');
  });

  it('lists drift that is gone', async () => {
    const { report, run } = await compare('none', 'undocumented-status');
    expect(report.comparison?.goneDrift.map((f) => `${f.operationId} ${f.status} ${f.kind}`)).toContain(
      'getWalk 422 status',
    );
    expect(report.comparison?.newDrift).toEqual([]);
    expect(run.stdout).toContain('  drift gone:\n    getWalk 422 status');
  });

  it('says nothing changed between two runs of the same deployment', async () => {
    const { report, run } = await compare('none', 'none');
    expect(report.comparison).toMatchObject({
      newlyFailing: [],
      newlyPassing: [],
      newAdvisories: [],
      newDrift: [],
      goneDrift: [],
      driftCompared: true,
    });
    expect(run.stdout).toContain('  nothing changed');
  });

  it('reads a report made when the collection and item rules had walk ids as the same checks', async () => {
    const text = readFileSync(previous['limit-1-gives-2'] ?? '', 'utf8');
    const file = join(dir, 'walk-ids.json');
    writeFileSync(
      file,
      text.replaceAll('"COLLECTION-003"', '"WALKS-LIST-003"').replaceAll('"ITEM-001"', '"WALK-DETAIL-001"'),
    );
    expect(readFileSync(file, 'utf8')).toContain('"WALKS-LIST-003"');
    const { run, report } = await compare('limit-1-gives-2', file);
    expect(report.comparison?.stillFailing).toContain('COLLECTION-003');
    expect(report.comparison?.newlyFailing).toEqual([]);
    expect(run.stdout).not.toContain('newly failing');
  });

  it('compares the checks of a report made before reports had a drift section', async () => {
    const old = JSON.parse(readFileSync(previous.none ?? '', 'utf8')) as Partial<Report>;
    delete old.drift;
    const file = join(dir, 'old.json');
    writeFileSync(file, JSON.stringify(old));
    const { report, run } = await compare('limit-1-gives-2', file);
    expect(report.comparison?.driftCompared).toBe(false);
    expect(report.comparison?.newlyFailing.length).toBeGreaterThan(0);
    expect(run.stdout).toContain('drift not compared: the previous report has no drift section');
  });

  it.each([
    ['not JSON', 'Verdict: PASS', /is not JSON/],
    ['JSON without results', '{"summary":{}}', /is not a conformance JSON report/],
    ['results without statuses', '{"results":[{"id":"X"}]}', /is not a conformance JSON report/],
  ])('exits 2 on a previous file that is %s', async (_what, text, message) => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, text);
    const run = await cli(['--base-url', urlOf('none'), '--compare', file]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});
