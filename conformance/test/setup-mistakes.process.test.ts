/**
 * The tester's own mistakes get a verdict about the setup, not the deployment. Each row
 * of the table below runs the CLI as a process, as `npm run conformance` does (`--` before the
 * flags), and asserts the exit status, the number of lines and the message; a correct target still
 * passes (0), a broken one still fails (1), and a gateway path prefix is no mistake.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../reference-server/start.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import { loadSpec } from '../../spec/contract.ts';
import { CREDENTIAL_NAMES, KEY_PREFIX } from '../../spec/facts.ts';
import type { Report } from '../core/report-model.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';
import { runCli } from './harness.ts';
import type { MutationServer } from '../../tools/test-support/mutations.ts';
import { MUTATIONS, startMutationServer } from '../../tools/test-support/mutations.ts';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without any CONFORMANCE_* of the machine running the tests. */
const CLEAN_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('CONFORMANCE_')),
);
const RUN_BOUND_MS = 60_000;

/** `npm run conformance -- ARGS` as a process: `node command-line/launch.js conformance/main.ts --` plus the flags. */
function conformance(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, ['command-line/launch.js', 'conformance/main.ts', '--', ...args], {
    env: { ...CLEAN_ENV, NO_COLOR: '1', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const bound = setTimeout(() => child.kill('SIGKILL'), RUN_BOUND_MS);
  return new Promise((resolve) =>
    child.on('close', (status) => {
      clearTimeout(bound);
      resolve({ status, stdout, stderr });
    }),
  );
}

const linesOf = (text: string) => text.split('\n').filter((line) => line !== '');

let dir: string;
let reference: RunningServer;
let keys: Record<string, string>;
let silent: Listening;
let gateway: Listening;
let variants: MutationServer;

/** Serves the reference server under `/gw/canvassing`, as a gateway with a path prefix would. */
function gatewayTo(target: string) {
  return createServer((req, res) => {
    const path = req.url?.replace(/^\/gw\/canvassing(?=\/)/, '') ?? '/';
    const upstream = request(`${target}${path}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'setup-mistakes-'));
  reference = await startReferenceServer({ host: '127.0.0.1', port: 0, log: false });
  keys = Object.fromEntries(
    CREDENTIAL_NAMES.flatMap((name) =>
      reference.credentials[name] ? [[name, reference.credentials[name]]] : [],
    ),
  );
  silent = await listen(() => undefined);
  gateway = await listen(gatewayTo(reference.baseUrl));
  variants = await startMutationServer();
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await Promise.all([reference.close(), silent.close(), gateway.close(), variants.close()]);
});

/** Flags refused before anything is sent: exit 2, the one line with `message`, the pointer to --help, nothing on stdout. */
async function refusedBeforeSending(args: string[], message: string): Promise<void> {
  const run = await conformance(args);
  expect(run.status).toBe(2);
  const lines = linesOf(run.stderr);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toContain(`conformance: ${message}`);
  expect(lines[1]).toBe('Run with --help for the options.');
  expect(run.stdout).toBe('');
}

describe(
  'the tester’s mistakes: exit 2 and one or two lines saying what to do',
  { timeout: RUN_BOUND_MS },
  () => {
    it('a wrong or expired key: one line, the key was rejected', async () => {
      const run = await conformance(['--base-url', reference.baseUrl], {
        ...keys,
        CONFORMANCE_API_KEY: `${KEY_PREFIX}expired0000000000000000000000000000`,
      });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(linesOf(run.stderr)).toEqual([
        'conformance: the key was rejected (401 unauthorized) on GET /api/v1/walks: check CONFORMANCE_API_KEY and the target (--base-url).',
      ]);
    });

    it('a base URL that already ends in /api/v1: two lines, with the URL to use', async () => {
      const run = await conformance(['--base-url', `${reference.baseUrl}/api/v1`], keys);
      expect(run.status).toBe(2);
      expect(linesOf(run.stderr)).toEqual([
        `conformance: the base URL must not include /api/v1: ${reference.baseUrl}/api/v1/walks answers where ${reference.baseUrl}/api/v1/api/v1/walks does not.`,
        `Use --base-url ${reference.baseUrl}`,
      ]);
    });

    it('a target that accepts connections and never answers: no answer within 2000 ms', async () => {
      const run = await conformance(['--base-url', silent.baseUrl, '--timeout', '2000'], keys);
      expect(run.status).toBe(2);
      const lines = linesOf(run.stderr);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/accepted the connection but gave no answer within 2000 ms/);
    });

    it.each([
      [['--only', 'AUHT'], '--only AUHT matches no check; nearest: AUTH, AUTH-001, AUTH-002'],
      [['--skip', 'WALKS-LIST-0013'], '--skip WALKS-LIST-0013 matches no check; nearest: WALKS-LIST-013'],
    ])('%j matching no check: names the pattern and the nearest ids', refusedBeforeSending);

    it('--traffic naming a missing recording: what is wrong with the file in words, exit 2', async () => {
      const missing = join(dir, 'missing.har');
      const run = await conformance(['--traffic', missing]);
      expect(run.status).toBe(2);
      expect(linesOf(run.stderr)).toEqual([
        `conformance: --traffic ${missing}: no such file (ENOENT)`,
        'Run with --help for the options.',
      ]);
    });

    it.each([
      [['--max-duration', '0'], '--max-duration must be a duration from 1s to 24h with its unit'],
      [['--rate-limit', '0/s'], '--rate-limit must be a rate from 1/s'],
      [['--rate-limit', '5/fortnight'], '--rate-limit must be a rate from 1/s'],
    ])('%j: exit 2 with its one line, before anything is sent', refusedBeforeSending);

    it('--env-file naming a missing file, through npm run conformance: env file not found', () => {
      const missing = join(dir, 'missing.env');
      const run = spawnSync('npm', ['run', '--silent', 'conformance', '--', '--env-file', missing], {
        encoding: 'utf8',
        env: CLEAN_ENV,
        timeout: RUN_BOUND_MS,
      });
      expect(run.status).toBe(2);
      expect(linesOf(run.stderr)).toEqual([
        `conformance: env file not found: ${missing}`,
        'Run with --help for the options.',
      ]);
    });

    it('a short key such as x: the key is rejected, and only whole occurrences of it are redacted', async () => {
      const har = join(dir, 'short-key.har');
      const run = await conformance(['--base-url', reference.baseUrl, '--har', har], {
        CONFORMANCE_API_KEY: 'x',
      });
      expect(run.status).toBe(2);
      expect(linesOf(run.stderr)).toEqual([
        'conformance: the key was rejected (401 unauthorized) on GET /api/v1/walks: check CONFORMANCE_API_KEY and the target (--base-url).',
      ]);
      expect(linesOf(run.stdout)).toEqual([`report: ${har}`]);
      const text = readFileSync(har, 'utf8');
      expect(text).toContain('"Bearer $CONFORMANCE_API_KEY"');
      expect(text).not.toMatch(/Bearer x"/);
      // The reference server's x-content-type-options header keeps its letter x.
      expect(text).toContain('x-content-type-options');
    });

    it('--reporter json --output F: the closing lines name every report written', async () => {
      const json = join(dir, 'r.json');
      const har = join(dir, 'r.har');
      const run = await conformance(
        [
          '--base-url',
          reference.baseUrl,
          '--only',
          'ENVELOPE-001',
          '--reporter',
          'json',
          '--output',
          json,
          '--har',
          har,
        ],
        keys,
      );
      expect(run.status).toBe(0);
      expect(linesOf(run.stdout).slice(-2)).toEqual([`report: ${har}`, `report: ${json}`]);
      const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
      expect(report.preflight).toMatchObject({ requests: 1, warnings: [] });
    });
  },
);

describe('what is not a mistake', { timeout: RUN_BOUND_MS }, () => {
  it('a correct target passes (exit 0), its pre-flight sharing its one list request', async () => {
    const json = join(dir, 'pass.json');
    const run = await conformance(
      ['--base-url', reference.baseUrl, '--reporter', 'json', '--output', json],
      keys,
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Verdict: PASS/);
    expect(JSON.parse(readFileSync(json, 'utf8')).preflight.requests).toBe(1);
  });

  it('a broken target still fails (exit 1) and names the requirement', async () => {
    const broken = MUTATIONS.find((m) => m.name === 'limit-1-gives-2');
    if (!broken) throw new Error('variant missing');
    const run = await conformance(['--base-url', variants.urlOf(broken), '--only', 'COLLECTION'], {
      ...variants.world.credentials,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('✗ COLLECTION-003');
  });

  it('a base URL behind a gateway path prefix passes the pre-flight', async () => {
    const run = await conformance(
      ['--base-url', `${gateway.baseUrl}/gw/canvassing`, '--only', 'COLLECTION-001'],
      keys,
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain('warning');
  });

  it('a mock checked with --profile live: a warning suggesting --profile mock, not an exit', async () => {
    const example = (loadSpec().components?.examples?.WalkList as { value: unknown }).value;
    const mock = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(example));
    });
    try {
      const run = await runCli(['--base-url', mock.baseUrl, '--only', 'ENVELOPE-001'], keys);
      expect(run.stdout).toMatch(/warning: .* looks like a mock; with a mock, use --profile mock/);
      expect(run.status).toBe(0);
    } finally {
      await mock.close();
    }
  });
});
