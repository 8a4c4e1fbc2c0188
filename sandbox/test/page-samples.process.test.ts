/**
 * The request samples of the reference page, copied as a partner copies them: `npm start` on ports
 * that are not the defaults, the page fetched from it, every curl, JavaScript and Python sample
 * taken out of the page exactly as it is there and run with nothing but `API_KEY` set (and the
 * PATH and HOME a shell needs). Each must print the answer its own comment says it prints.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCredentials } from '../../fixtures/index.ts';
import { freePort } from '../../command-line/free-port.ts';
import { type Launched, killGroup, launchNpm, redacted } from '../../tools/test-support/child-launcher.ts';
import { createContractValidator, loadSpec, operationsOf } from '../../spec/contract.ts';

interface PageSample {
  operationId: string;
  label: string;
  source: string;
}

const validator = createContractValidator();
const keys = demoCredentials();
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

let sandbox: Launched | undefined;
let origin = '';
let samples: PageSample[] = [];

beforeAll(async () => {
  const port = await freePort();
  let mockPort = await freePort();
  while (mockPort === port) mockPort = await freePort();
  sandbox = launchNpm(['start', '--', '--port', String(port), '--mock-port', String(mockPort)]);
  await sandbox.waitForOutput('Ctrl-C stops both.');
  origin = `http://127.0.0.1:${port}`;
  samples = samplesOfPage(await (await fetch(`${origin}/docs`)).text());
}, 90_000);

afterAll(() => {
  if (sandbox) killGroup(sandbox.pgid);
});

/** The samples as the page carries them: the `x-codeSamples` of the document Redoc renders. */
function samplesOfPage(html: string): PageSample[] {
  const start = html.indexOf('const __redoc_definition = ');
  const end = html.indexOf(';\n', start);
  if (start < 0 || end < 0) throw new Error('the page carries no __redoc_definition');
  const definition = JSON.parse(html.slice(start + 'const __redoc_definition = '.length, end)) as {
    paths: Record<string, Record<string, { operationId: string; 'x-codeSamples'?: PageSample[] }>>;
  };
  return Object.values(definition.paths).flatMap((item) =>
    Object.values(item).flatMap((op) =>
      (op['x-codeSamples'] ?? []).map((sample) => ({ ...sample, operationId: op.operationId })),
    ),
  );
}

async function run(sample: PageSample, apiKey: string) {
  const runner = RUNNERS[sample.label];
  if (!runner) throw new Error(`no runner for ${sample.label}`);
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', API_KEY: apiKey };
  try {
    const { stdout, stderr } = await promisify(execFile)(runner.command, runner.args(sample.source), {
      env,
      timeout: 30_000,
    });
    return { exitCode: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { exitCode: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** The live operations of the spec the sandbox serves (the project's): each has its samples on the page. */
const operations = operationsOf(loadSpec());

/**
 * Holds the printed answer to what the sample's own comment says: `[50 walks]` (as many items as
 * `limit`), or for an item the one its URL names.
 */
function expectTheAnswerItNames(sample: PageSample, printed: unknown): void {
  expect(validator.validateResponse(sample.operationId, 200, printed).errors).toEqual([]);
  const said = /Prints the 200 answer: (.*)$/m.exec(sample.source)?.[1];
  expect(said, 'the sample says what it prints').toBeDefined();
  const count = /\[(\d+) [a-z_]+\]/.exec(said ?? '')?.[1];
  const body = printed as { data: { id?: string } | unknown[]; meta?: { count: number } };
  if (count !== undefined) {
    expect([(body.data as unknown[]).length, body.meta?.count]).toEqual([Number(count), Number(count)]);
  } else {
    const op = operations.find((candidate) => candidate.operationId === sample.operationId);
    const collection = op?.path.slice(0, op.path.lastIndexOf('/{')) ?? '';
    const id = new RegExp(`${origin}${collection}/([^/?'"\\\\\\s]+)`).exec(sample.source)?.[1];
    expect(id, 'the sample names an item in its URL').toBeDefined();
    expect((body.data as { id?: string }).id).toBe(decodeURIComponent(id ?? ''));
  }
}

describe(
  'the reference page’s samples, as served by npm start on its own ports',
  { timeout: 120_000 },
  () => {
    it('carries a curl, a JavaScript and a Python sample for every live operation, against this sandbox', () => {
      const expected = operations.flatMap((op) =>
        Object.keys(RUNNERS).map((label) => `${op.operationId} ${label}`),
      );
      expect(expected.length).toBeGreaterThan(0);
      expect(samples.map((s) => `${s.operationId} ${s.label}`).sort()).toEqual(expected.sort());
      for (const sample of samples) {
        expect(sample.source).toContain(origin);
        expect(sample.source).not.toContain('127.0.0.1:8080');
      }
    });

    // Skipped (and counted as skipped) on a machine without curl or Python's requests; under CI,
    // whose .ci/run installs them, they run and a missing one fails.
    const labels = Object.keys(RUNNERS);
    const runnable = labels.filter((label) => RUNNERS[label]?.available || process.env.CI);
    const notHere = labels.filter((label) => !runnable.includes(label));
    if (notHere.length > 0) it.skip.each(notHere)('%s: this machine cannot run it', () => {});

    it.each(runnable)('%s: each prints what it says', async (label) => {
      for (const sample of samples.filter((s) => s.label === label)) {
        const ok = await run(sample, keys.CONFORMANCE_API_KEY);
        expect(redacted(ok.stderr)).toBe('');
        expect(ok.exitCode).toBe(0);
        expectTheAnswerItNames(sample, JSON.parse(ok.stdout));
        if (label === 'curl') continue;
        // The fetch and requests samples stop on an error answer and say its status and code.
        const refused = await run(sample, keys.CONFORMANCE_REVOKED_KEY);
        expect(refused.exitCode).not.toBe(0);
        expect(refused.stderr).toContain('401 unauthorized');
      }
    });
  },
);
