/**
 * The request samples of the docs page, run as a partner would paste them: the curl line in bash,
 * the fetch sample in Node and the requests sample in Python, against a reference server with a
 * demo key. The walk id of the spec's example names no demo walk, so it is swapped for a real one.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCredentials } from '../../fixtures/index.ts';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import { loadSpec, operationsOf } from '../../spec/contract.ts';
import {
  type CodeSample,
  codeSamplesOf,
  KEY_VARIABLE,
  sandboxUrlOf,
  sampleRequestOf,
} from '../code-samples.ts';

const doc = loadSpec();
const keys = demoCredentials();

/** How each sample language is run, and whether this machine can. */
const RUNNERS: Record<string, { command: string; args: (source: string) => string[]; available: boolean }> = {
  curl: { command: 'bash', args: (source) => ['-c', source], available: canRun('curl', ['--version']) },
  'JavaScript (fetch)': {
    command: process.execPath,
    args: (source) => ['--input-type=module', '-e', source],
    available: true,
  },
  'Python (requests)': {
    command: 'python3',
    args: (source) => ['-c', source],
    available: canRun('python3', ['-c', 'import requests']),
  },
};

function canRun(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

let server: RunningServer;
let firstWalkId: string;

beforeAll(async () => {
  server = await startReferenceServer({ host: '127.0.0.1', port: 0, log: false });
  const list = await fetch(`${server.baseUrl}/api/v1/walks?limit=1`, {
    headers: { Authorization: `Bearer ${keys.CONFORMANCE_API_KEY}` },
  });
  firstWalkId = ((await list.json()) as { data: Array<{ id: string }> }).data[0]?.id ?? '';
});

afterAll(() => server?.close());

/** The sample pointed at the test's server and at a walk that exists there. */
function runnable(sample: CodeSample, exampleId: string | undefined): string {
  const source = sample.source.replaceAll(sandboxUrlOf(doc), server.baseUrl);
  return exampleId ? source.replaceAll(exampleId, firstWalkId) : source;
}

async function run(sample: CodeSample, source: string, apiKey: string) {
  const runner = RUNNERS[sample.label];
  if (!runner) throw new Error(`no runner for ${sample.label}`);
  const env = { ...process.env, [KEY_VARIABLE]: apiKey };
  try {
    const { stdout, stderr } = await promisify(execFile)(runner.command, runner.args(source), {
      env,
      timeout: 30_000,
    });
    return { exitCode: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { exitCode: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const cases = operationsOf(doc).flatMap((op) =>
  codeSamplesOf(doc, op).map((sample) => [op.operationId, sample.label, op, sample] as const),
);

describe('the request samples of the docs page', { timeout: 120_000 }, () => {
  const runnableHere = cases.filter(([, label]) => RUNNERS[label]?.available);
  const notHere = cases.filter(([, label]) => !RUNNERS[label]?.available);
  // Skipped (and counted as skipped) on a developer's machine without them; under CI, whose
  // `.ci/run` installs them, a sample nobody ran is a failure.
  if (notHere.length > 0 && process.env.CI) {
    it.each(notHere)('%s, %s: this CI machine must be able to run it', (_id, label) => {
      expect.fail(`cannot run the ${label} sample here: install curl, python3 and python3-requests`);
    });
  } else if (notHere.length > 0) {
    it.skip.each(notHere)(
      '%s, %s: skipped, this machine cannot run it (no curl, python3 or requests)',
      () => {},
    );
  }

  it.each(runnableHere)('%s, %s: reads the demo data with a demo key', async (_id, label, op, sample) => {
    const exampleId = sampleRequestOf(doc, op).url.split('/').at(-1);
    const id = op.path.includes('{') ? exampleId : undefined;
    const ok = await run(sample, runnable(sample, id), keys.CONFORMANCE_API_KEY);
    expect(ok.stderr).toBe('');
    expect(ok.exitCode).toBe(0);
    if (label === 'curl') expect((JSON.parse(ok.stdout) as { ok: boolean }).ok).toBe(true);
    if (id) expect(ok.stdout).toContain(firstWalkId);

    // The fetch and requests samples stop on an error answer and say its code.
    if (label === 'curl') return;
    const refused = await run(sample, runnable(sample, id), keys.CONFORMANCE_REVOKED_KEY);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('401 unauthorized');
  });
});
