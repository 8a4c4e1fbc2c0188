/**
 * conformance/action.yml run from its own YAML, with its inputs set as a runner sets them, as
 * `uses: OWNER/REPO/conformance@REF` runs it: from a checkout of this repository's files (copied
 * from the work tree, as GitHub checks out the action's ref), installing with `npm ci --omit=dev`
 * there, no package of ours from a registry. Against the reference server, a broken server of the
 * proof set, an address where nothing listens, a key with no base URL, and the reference server
 * behind a proxy, a private CA, mutual TLS and a gateway header; the `package` input still
 * installs a packed tarball instead.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
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
import type { Report } from '../../../conformance/core/report-model.ts';
import { REPO_ROOT } from '../packages.ts';
import { type ActionRun, runAction } from './action-runner.ts';
import { cleanup, scratchDir } from '../packed.ts';
import { packedForRun } from './pack-once.ts';

const BROKEN = MUTATIONS.find((m) => m.name === 'meta-count-off-by-one');

let tarball: string;
/** The action as GitHub checks it out: this repository's files, in a folder of their own. */
let action: string;
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

/** The repository's files as a checkout holds them: what git tracks, as the work tree has them. */
function checkout(): string {
  const dir = scratchDir('action-checkout');
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\0');
  for (const file of files.filter((f) => f !== '' && existsSync(join(REPO_ROOT, f)))) {
    cpSync(join(REPO_ROOT, file), join(dir, file));
  }
  return join(dir, 'conformance', 'action.yml');
}

/** A runner's npm: the job's cache is warm from the repository's own install (as actions/setup-node keeps it). */
const JOB_ENV = { npm_config_prefer_offline: 'true' };

beforeAll(async () => {
  action = checkout();
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
}, 600_000);

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

/** The workspace of the passing run, its reports left there for a later run to find. */
let passedWorkspace: string | undefined;

describe('conformance/action.yml', () => {
  it('runs from its own files: npm ci --omit=dev in the checkout, verdict pass, every report, a summary, no key printed', async () => {
    const workspace = scratchDir('workspace');
    passedWorkspace = workspace;
    const run = await runAction(
      action,
      { ...inputsFor(reference.baseUrl, reference.credentials), strict: 'true' },
      workspace,
      JOB_ENV,
    );
    expect(
      run.steps.map((s) => s.status),
      printed(run),
    ).toEqual([0, 0, 0]);
    // Installed from the checkout's own lock file, without the dev dependencies.
    const root = join(action, '..', '..');
    expect(existsSync(join(root, 'node_modules', 'undici'))).toBe(true);
    expect(existsSync(join(root, 'node_modules', 'vitest'))).toBe(false);
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
  }, 600_000);

  it('fails a broken server: the step fails, verdict fail, the summary names the failed check', async () => {
    if (!BROKEN) throw new Error('the proof set has no meta-count-off-by-one mutation');
    const workspace = scratchDir('workspace');
    const run = await runAction(
      action,
      { ...inputsFor(broken.urlOf(BROKEN), broken.world.credentials), reporters: 'junit' },
      workspace,
      JOB_ENV,
    );
    expect(run.steps.map((s) => s.status)).toEqual([0, 1, 0]);
    expect(run.outputs).toMatchObject({ verdict: 'fail', 'exit-code': '1', html: '' });
    expect(existsSync(join(workspace, run.outputs.junit ?? ''))).toBe(true);
    expect(run.summary).toContain('API conformance: fail');
    expect(run.summary).toContain(BROKEN.breaks);
  }, 600_000);

  it('cannot judge an address where nothing listens: verdict not judged, exit code 2, said in the summary, not the earlier pass', async () => {
    // The same workspace as the passing run: its reports are still there when this run is refused.
    const workspace = passedWorkspace ?? scratchDir('workspace');
    const closed = await startReferenceServer({ log: false });
    await closed.close();
    const run = await runAction(action, inputsFor(closed.baseUrl, reference.credentials), workspace, JOB_ENV);
    expect(run.steps.map((s) => s.status)).toEqual([0, 2, 0]);
    expect(run.outputs).toMatchObject({ verdict: 'not judged', 'exit-code': '2' });
    expect(run.summary).toMatch(/could not judge/i);
    expect(run.summary).toContain('API conformance: not judged');
    expect(run.summary).not.toContain('API conformance: pass');
  }, 600_000);

  it('reaches staging behind a proxy, a private CA, mutual TLS and a gateway header; no secret printed or left behind', async () => {
    const workspace = scratchDir('workspace');
    const run = await runAction(
      action,
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
      JOB_ENV,
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
    // Reproductions name the files' variables, not the files removed when the step ended.
    const report = JSON.parse(readFileSync(join(workspace, run.outputs.json ?? ''), 'utf8')) as Report;
    const curls = report.results.flatMap((r) => (r.request ? [r.request.curl] : []));
    expect(curls.length).toBeGreaterThan(0);
    for (const curl of curls) {
      expect(curl).not.toContain(run.runnerTemp);
      expect(curl).toContain(
        '--cacert "$CONFORMANCE_CA_FILE" --cert "$CONFORMANCE_CERT_FILE" --key "$CONFORMANCE_KEY_FILE"',
      );
    }
  }, 600_000);

  it('fails closed on a key with no base URL: exit 2, the refusal in the summary as plain text', async () => {
    const workspace = scratchDir('workspace');
    const run = await runAction(action, inputsFor('', reference.credentials), workspace, JOB_ENV);
    expect(run.steps.map((s) => s.status)).toEqual([0, 2, 0]);
    expect(run.outputs).toMatchObject({ verdict: 'not judged', 'exit-code': '2' });
    expect(run.summary).toContain('could not judge the deployment');
    expect(run.summary).toMatch(
      /```text\nconformance: CONFORMANCE_API_KEY is set but CONFORMANCE_BASE_URL is empty or missing/,
    );
  }, 600_000);

  it('installs a packed (or published) canvassing-conformance instead when the package input names one', async () => {
    const workspace = scratchDir('workspace');
    const run = await runAction(
      action,
      { ...inputsFor(reference.baseUrl, reference.credentials), package: tarball, reporters: 'json' },
      workspace,
    );
    expect(
      run.steps.map((s) => s.status),
      printed(run),
    ).toEqual([0, 0, 0]);
    expect(run.outputs).toMatchObject({ verdict: 'pass', 'exit-code': '0' });
    expect(run.summary).toContain('API conformance: pass');
  }, 600_000);
});
