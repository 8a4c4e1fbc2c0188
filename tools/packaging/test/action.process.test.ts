/**
 * conformance/action.yml run from its own YAML, with its inputs set as a runner sets them, against
 * the reference server, a broken server of the proof set, an address where nothing listens, and
 * the reference server behind a proxy, a private CA, mutual TLS and a gateway header.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listening } from '../../test-support/listen.ts';
import { MUTATIONS, type MutationServer, startMutationServer } from '../../test-support/mutations.ts';
import {
  type ForwardProxy,
  HIDDEN_HOST,
  makePki,
  type Pki,
  startForwardProxy,
  startHeaderGate,
  startTerminator,
} from '../../test-support/reach-parts.ts';
import { type RunningServer, startReferenceServer } from '../../../reference-server/start.ts';
import { REPO_ROOT } from '../packages.ts';
import { type ActionRun, runAction } from './action-runner.ts';
import { cleanup, scratchDir } from '../packed.ts';
import { packedForRun } from './pack-once.ts';

const ACTION = join(REPO_ROOT, 'conformance', 'action.yml');
const BROKEN = MUTATIONS.find((m) => m.name === 'meta-count-off-by-one');

let tarball: string;
let reference: RunningServer;
let broken: MutationServer;
let pki: Pki;
let gate: Listening;
let staging: Listening;
let proxy: ForwardProxy;
const GATE_HEADER = 'X-Gateway-Token';
const GATE_VALUE = 'gw-action-token-41c7e0-never-printed';
const PROXY_PASSWORD = 'proxy-action-pass-2b9d-never-printed';
const hidden = (scheme: string, part: Listening) =>
  `${scheme}://${HIDDEN_HOST}:${new URL(part.baseUrl).port}`;

beforeAll(async () => {
  tarball = await packedForRun('conformance');
  reference = await startReferenceServer({ log: false });
  broken = await startMutationServer();
  // Staging as a company sets it up: a gateway wanting a header, behind TLS with a private CA that
  // requires a client certificate, reached only through a forward proxy.
  pki = makePki(scratchDir('pki'));
  gate = await startHeaderGate(reference.baseUrl, GATE_HEADER, GATE_VALUE);
  staging = await startTerminator(gate.baseUrl, {
    identity: pki.server,
    clientCa: readFileSync(pki.caFile, 'utf8'),
  });
  proxy = await startForwardProxy();
}, 240_000);

afterAll(async () => {
  await proxy?.close();
  await staging?.close();
  await gate?.close();
  await reference?.close();
  await broken?.close();
  cleanup();
});

/** The action's inputs for a target serving the demo data set, keys as secrets would pass them. */
function inputsFor(baseUrl: string, keys: Record<string, string>): Record<string, string> {
  return {
    package: tarball,
    'base-url': baseUrl,
    'api-key': keys.CONFORMANCE_API_KEY ?? '',
    'no-scope-key': keys.CONFORMANCE_NO_SCOPE_KEY ?? '',
    'other-campaign-key': keys.CONFORMANCE_OTHER_CAMPAIGN_KEY ?? '',
    'revoked-key': keys.CONFORMANCE_REVOKED_KEY ?? '',
    'empty-campaign-key': keys.CONFORMANCE_EMPTY_CAMPAIGN_KEY ?? '',
    'web-base-url': keys.CONFORMANCE_WEB_BASE_URL ?? '',
  };
}

function printed(run: ActionRun): string {
  return run.steps.map((step) => step.stdout + step.stderr).join('\n') + run.summary;
}

describe('conformance/action.yml', () => {
  it('passes the reference server: verdict pass, every report, a summary, no key printed', async () => {
    const workspace = scratchDir('workspace');
    const run = await runAction(
      ACTION,
      { ...inputsFor(reference.baseUrl, reference.credentials), strict: 'true' },
      workspace,
    );
    expect(run.steps.map((s) => s.status)).toEqual([0, 0, 0]);
    expect(run.outputs).toMatchObject({ verdict: 'pass', 'exit-code': '0' });
    for (const name of ['junit', 'json', 'html'] as const) {
      expect(existsSync(join(workspace, run.outputs[name] ?? '')), name).toBe(true);
    }
    const report = JSON.parse(readFileSync(join(workspace, run.outputs.json ?? ''), 'utf8')) as {
      target: { strict: boolean };
    };
    expect(report.target.strict).toBe(true);
    expect(run.summary).toContain('API conformance: pass');
    expect(printed(run)).not.toContain(reference.credentials.CONFORMANCE_API_KEY);
  }, 90_000);

  it('fails a broken server: the step fails, verdict fail, the summary names the failed check', async () => {
    if (!BROKEN) throw new Error('the proof set has no meta-count-off-by-one mutation');
    const workspace = scratchDir('workspace');
    const run = await runAction(
      ACTION,
      { ...inputsFor(broken.urlOf(BROKEN), broken.world.credentials), reporters: 'junit' },
      workspace,
    );
    expect(run.steps.map((s) => s.status)).toEqual([0, 1, 0]);
    expect(run.outputs).toMatchObject({ verdict: 'fail', 'exit-code': '1', html: '' });
    expect(existsSync(join(workspace, run.outputs.junit ?? ''))).toBe(true);
    expect(run.summary).toContain('API conformance: fail');
    expect(run.summary).toContain(BROKEN.breaks);
  }, 90_000);

  it('cannot judge an address where nothing listens: verdict not judged, exit code 2, said in the summary', async () => {
    const workspace = scratchDir('workspace');
    const closed = await startReferenceServer({ log: false });
    await closed.close();
    const run = await runAction(ACTION, inputsFor(closed.baseUrl, reference.credentials), workspace);
    expect(run.steps.map((s) => s.status)).toEqual([0, 2, 0]);
    expect(run.outputs).toMatchObject({ verdict: 'not judged', 'exit-code': '2' });
    expect(run.summary).toMatch(/could not judge/i);
    expect(run.summary).toContain('API conformance: not judged');
  }, 90_000);

  it('reaches staging behind a proxy, a private CA, mutual TLS and a gateway header; no secret printed or left behind', async () => {
    const workspace = scratchDir('workspace');
    const run = await runAction(
      ACTION,
      {
        ...inputsFor(hidden('https', staging), reference.credentials),
        proxy: `http://qa:${PROXY_PASSWORD}@${new URL(proxy.baseUrl).host}`,
        'ca-cert': readFileSync(pki.caFile, 'utf8'),
        'client-cert': readFileSync(pki.clientCertFile, 'utf8'),
        'client-key': readFileSync(pki.encryptedKeyFile, 'utf8'),
        'client-key-passphrase': pki.passphrase,
        headers: `${GATE_HEADER}: ${GATE_VALUE}`,
      },
      workspace,
    );
    expect(run.outputs, printed(run)).toMatchObject({ verdict: 'pass', 'exit-code': '0' });
    expect(proxy.log).toContain(`CONNECT ${HIDDEN_HOST}:${new URL(staging.baseUrl).port}`);
    const everything = [
      printed(run),
      ...['junit', 'json', 'html'].map((r) => readFileSync(join(workspace, run.outputs[r] ?? ''), 'utf8')),
    ].join('\n');
    for (const secret of [
      PROXY_PASSWORD,
      pki.passphrase,
      GATE_VALUE,
      reference.credentials.CONFORMANCE_API_KEY ?? '',
    ]) {
      expect(everything).not.toContain(secret);
    }
    expect(readdirSync(run.runnerTemp).filter((f) => f.startsWith('canvassing-tls-'))).toEqual([]);
  }, 120_000);
});
