/**
 * Reproductions work in the same shell as the run: a gateway header given as `Name: $VAR` is read
 * from the environment and its curl names `$VAR`; a literal value is named by the variable the
 * suite also reads it from (`CONFORMANCE_HEADER_<NAME>`); files given by variable are named by it.
 * Each curl line below is run with bash and reaches the target; a `$VAR` that is not set is exit 2.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import type { Listening } from '../../tools/test-support/listen.ts';
import { makePki, type Pki, startHeaderGate, startTerminator } from '../../tools/test-support/reach-parts.ts';
import type { Report } from '../core/report-model.ts';
import { runCli } from './harness.ts';

const GATE_VALUE = 'gw-repro-token-6d0e2b-never-printed';
let dir: string;
let pki: Pki;
let reference: RunningServer;
let keys: Record<string, string>;
let gate: Listening;
let tls: Listening;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'canvassing-repro-'));
  pki = makePki(dir);
  reference = await startReferenceServer({ log: false });
  const { CONFORMANCE_WEB_BASE_URL: _web, ...rest } = reference.credentials;
  keys = rest as Record<string, string>;
  gate = await startHeaderGate(reference.baseUrl, 'X-Gateway-Token', GATE_VALUE);
  tls = await startTerminator(reference.baseUrl, { identity: pki.server });
}, 60_000);

afterAll(async () => {
  await Promise.all([gate?.close(), tls?.close(), reference?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** One check's run, its JSON report's first reproduction, and everything it printed. */
async function reproductionOf(baseUrl: string, flags: string[], env: Record<string, string>) {
  const json = join(dir, `r-${Math.random().toString(36).slice(2)}.json`);
  const run = await runCli(
    ['--base-url', baseUrl, '--only', 'COLLECTION-001', '--reporter', 'json', '--output', json, ...flags],
    { ...keys, ...env },
  );
  expect(run.status, run.stderr).toBe(0);
  const text = readFileSync(json, 'utf8');
  expect(text).not.toContain(GATE_VALUE);
  return { curl: (JSON.parse(text) as Report).results[0]?.request?.curl ?? '', printed: run.stdout + text };
}

/**
 * The status line of the curl run in bash with this environment (and the keys), as pasted; the
 * servers answer in this process, so the shell runs beside it, not blocking it.
 */
async function statusOf(curl: string, env: Record<string, string>): Promise<string> {
  const shell = await promisify(execFile)('bash', ['-c', curl], {
    env: { PATH: process.env.PATH, ...keys, ...env },
    encoding: 'utf8',
  });
  return shell.stdout.split('\r\n')[0] ?? shell.stderr;
}

describe('reproductions in the same shell as the run', { timeout: 30_000 }, () => {
  it("--header 'X-Gateway-Token: $GATEWAY_TOKEN' reads the variable; the curl names it and works", async () => {
    const env = { GATEWAY_TOKEN: GATE_VALUE };
    const { curl } = await reproductionOf(gate.baseUrl, ['--header', 'X-Gateway-Token: $GATEWAY_TOKEN'], env);
    expect(curl).toContain('-H "X-Gateway-Token: $GATEWAY_TOKEN"');
    expect(await statusOf(curl, env)).toBe('HTTP/1.1 200 OK');
  });

  it('${VAR} inside a value works the same', async () => {
    const env = { GW_PART: GATE_VALUE.slice(3) };
    const { curl } = await reproductionOf(gate.baseUrl, ['--header', 'X-Gateway-Token: gw-${GW_PART}'], env);
    expect(curl).toContain('-H "X-Gateway-Token: gw-${GW_PART}"');
    expect(await statusOf(curl, env)).toBe('HTTP/1.1 200 OK');
  });

  it('a --header naming a variable that is not set: exit 2 naming it, nothing sent', async () => {
    const run = await runCli(
      ['--base-url', gate.baseUrl, '--header', 'X-Gateway-Token: $GATEWAY_TOKEN_UNSET'],
      keys,
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /--header #1 \(X-Gateway-Token\) names \$GATEWAY_TOKEN_UNSET, which is not set/,
    );
  });

  it('a literal value: the curl names CONFORMANCE_HEADER_X_GATEWAY_TOKEN, which the suite reads too', async () => {
    const { curl } = await reproductionOf(gate.baseUrl, ['--header', `X-Gateway-Token: ${GATE_VALUE}`], {});
    expect(curl).toContain('-H "X-Gateway-Token: $CONFORMANCE_HEADER_X_GATEWAY_TOKEN"');
    const env = { CONFORMANCE_HEADER_X_GATEWAY_TOKEN: GATE_VALUE };
    expect(await statusOf(curl, env)).toBe('HTTP/1.1 200 OK');
    const fromVariable = await reproductionOf(gate.baseUrl, [], env);
    expect(fromVariable.curl).toContain('-H "X-Gateway-Token: $CONFORMANCE_HEADER_X_GATEWAY_TOKEN"');
  });

  it('CONFORMANCE_CA_FILE: the curl names the variable, not a path that may be gone', async () => {
    const env = { CONFORMANCE_CA_FILE: pki.caFile };
    const { curl } = await reproductionOf(`https://localhost:${new URL(tls.baseUrl).port}`, [], env);
    expect(curl).toContain('--cacert "$CONFORMANCE_CA_FILE"');
    expect(curl).not.toContain(pki.caFile);
    expect(await statusOf(curl, env)).toBe('HTTP/1.1 200 OK');
  });
});
