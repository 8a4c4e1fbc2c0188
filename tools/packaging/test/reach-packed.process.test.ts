/**
 * Reaching staging through the packed CLI, installed as QA installs it, on the official Node 22 and 24
 * builds (tools/packaging/node-versions, as node-versions.process.test.ts installs them) and the Node running the
 * tests: each part a staging set-up puts in the way (a proxy that alone resolves the host, a
 * private CA, mutual TLS under TLS 1.2 and 1.3, a gateway header) is passed with its flag, and
 * without it is exit 2 in plain words naming that flag.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listening } from '../../test-support/listen.ts';
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
import { cleanup, outsideEnv, run, scratchDir } from '../packed.ts';
import { installOfficialNodes, OFFICIAL_NODES } from '../../test-support/official-nodes.ts';
import { installedForRun, packedForRun } from './pack-once.ts';

const NODES = OFFICIAL_NODES;
const GATE_HEADER = 'X-Gateway-Token';
const GATE_VALUE = 'gw-packed-token-7a01-never-printed';

let cli: string;
let pki: Pki;
let reference: RunningServer;
let proxy: ForwardProxy;
let tls: Listening;
let mutual12: Listening;
let mutual13: Listening;
let gate: Listening;

beforeAll(async () => {
  await installOfficialNodes();
  const project = await installedForRun([await packedForRun('conformance')]);
  cli = join(project, 'node_modules', 'canvassing-conformance', 'dist', 'bin', 'canvassing-conformance.mjs');
  pki = makePki(scratchDir('pki'));
  reference = await startReferenceServer({ log: false });
  const clientCa = readFileSync(pki.caFile, 'utf8');
  proxy = await startForwardProxy();
  tls = await startTerminator(reference.baseUrl, { identity: pki.server });
  mutual12 = await startTerminator(reference.baseUrl, { identity: pki.server, clientCa, tls: 'TLSv1.2' });
  mutual13 = await startTerminator(reference.baseUrl, { identity: pki.server, clientCa, tls: 'TLSv1.3' });
  gate = await startHeaderGate(reference.baseUrl, GATE_HEADER, GATE_VALUE);
}, 900_000);

afterAll(async () => {
  await Promise.all([proxy, tls, mutual12, mutual13, gate].map((part) => part?.close()));
  await reference?.close();
  cleanup();
});

const port = (part: Listening | RunningServer) => new URL(part.baseUrl).port;

interface Way {
  name: string;
  baseUrl: () => string;
  /** What passes, and what is left out to see the run stop. */
  withIt: () => { args: string[]; env?: Record<string, string> };
  without: () => { args: string[]; env?: Record<string, string> };
  /** The stop's words: the flag that fixes it. */
  stop: RegExp;
}

const WAYS: Way[] = [
  {
    name: 'an http target only the proxy resolves (HTTP_PROXY, absolute-URI)',
    baseUrl: () => `http://${HIDDEN_HOST}:${port(reference)}`,
    withIt: () => ({ args: [], env: { HTTP_PROXY: proxy.baseUrl } }),
    without: () => ({ args: [] }),
    stop: /host name not found.*\n.*--proxy/,
  },
  {
    name: 'an https target only the proxy resolves (--proxy, CONNECT)',
    baseUrl: () => `https://${HIDDEN_HOST}:${port(tls)}`,
    withIt: () => ({ args: ['--proxy', proxy.baseUrl, '--ca-file', pki.caFile] }),
    without: () => ({ args: ['--ca-file', pki.caFile] }),
    stop: /host name not found.*\n.*--proxy/,
  },
  {
    name: 'a private CA (--ca-file)',
    baseUrl: () => `https://localhost:${port(tls)}`,
    withIt: () => ({ args: ['--ca-file', pki.caFile] }),
    without: () => ({ args: [] }),
    stop: /does not trust.*\n.*--ca-file.*NODE_EXTRA_CA_CERTS.*--insecure/,
  },
  ...(['1.2', '1.3'] as const).map((version): Way => ({
    name: `mutual TLS ${version} (--cert, --key)`,
    baseUrl: () => `https://localhost:${port(version === '1.2' ? mutual12 : mutual13)}`,
    withIt: () => ({
      args: ['--ca-file', pki.caFile, '--cert', pki.clientCertFile, '--key', pki.clientKeyFile],
    }),
    without: () => ({ args: ['--ca-file', pki.caFile] }),
    stop: /requires a client certificate.*\n.*--cert FILE --key FILE/,
  })),
  {
    name: 'a gateway header (--header)',
    baseUrl: () => gate.baseUrl,
    withIt: () => ({ args: ['--header', `${GATE_HEADER}: ${GATE_VALUE}`] }),
    without: () => ({ args: [] }),
    stop: /answered 401 from something in front of the API.*\n.*--header/,
  },
];

async function packed(
  node: string,
  baseUrl: string,
  given: { args: string[]; env?: Record<string, string> },
) {
  const args = [cli, '--base-url', baseUrl, '--only', 'COLLECTION-001', ...given.args];
  return run(node, args, { env: outsideEnv({ ...reference.credentials, ...given.env }) });
}

describe.each(Object.entries(NODES))('the packed CLI on %s', (_name, node) => {
  it.each(WAYS)(
    '$name: passes with it, exit 2 naming the flag without it',
    async (way) => {
      const passed = await packed(node, way.baseUrl(), way.withIt());
      expect(passed.status, passed.stderr).toBe(0);
      expect(passed.stdout).toMatch(/Verdict: PASS/);
      expect(passed.stdout + passed.stderr).not.toContain(GATE_VALUE);
      const stopped = await packed(node, way.baseUrl(), way.without());
      expect(stopped.status, stopped.stderr).toBe(2);
      expect(stopped.stderr.trim().split('\n')).toHaveLength(2);
      expect(stopped.stderr).toMatch(way.stop);
    },
    60_000,
  );

  it.each([
    ['an encrypted key without its passphrase', [], /is encrypted: name the variable holding its passphrase/],
    [
      'a wrong passphrase',
      ['--key-passphrase-env', 'QA_WRONG'],
      /does not decrypt with the passphrase in QA_WRONG/,
    ],
    ["a key that is not the certificate's", ['STRANGER'], /is not the key of --cert/],
  ])(
    '%s: exit 2 before anything is sent, in its words',
    async (_name, extra, message) => {
      const key = extra[0] === 'STRANGER' ? pki.strangerKeyFile : pki.encryptedKeyFile;
      const args = ['--cert', pki.clientCertFile, '--key', key, ...extra.filter((a) => a !== 'STRANGER')];
      const ran = await packed(node, `https://localhost:${port(mutual13)}`, {
        args,
        env: { QA_WRONG: 'not-the-passphrase' },
      });
      expect(ran.status, ran.stderr).toBe(2);
      expect(ran.stderr).toMatch(message);
    },
    60_000,
  );
});
