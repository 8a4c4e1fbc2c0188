/**
 * Say what to fix, with real parts on 127.0.0.1 (reach-parts.ts): a proxy that accepts and never
 * answers ends the run within a few timeouts naming the proxy; a proxy whose DNS fails is named with
 * its own answer; refused proxy credentials name the user, never the password; a client
 * certificate out of its dates is refused before anything is sent; a chain the `--ca-file` CA did
 * not sign names the file; an `https://` proxy that speaks plain HTTP names the proxy; a TLS
 * terminator that refuses the given client certificate with a 400 says it was not accepted.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import type { Listening } from '../../tools/test-support/listen.ts';
import {
  type ForwardProxy,
  HIDDEN_HOST,
  makePki,
  type Pki,
  startForwardProxy,
  startSilentProxy,
  startTerminator,
} from '../../tools/test-support/reach-parts.ts';
import type { Report } from '../core/report-model.ts';
import { type CliRun, runCli } from './harness.ts';

const PROXY_PASSWORD = 'proxy-diag-pass-71c2-never-printed';
let dir: string;
let pki: Pki;
let reference: RunningServer;
let keys: Record<string, string>;
let silent: Listening;
let squid: ForwardProxy;
let guarded: ForwardProxy;
let tls: Listening;
let nginxLike: Listening;
const parts: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'canvassing-reach-diagnosis-'));
  pki = makePki(dir);
  reference = await startReferenceServer({ log: false });
  const { CONFORMANCE_WEB_BASE_URL: _web, ...rest } = reference.credentials;
  keys = rest as Record<string, string>;
  silent = await startSilentProxy();
  squid = await startForwardProxy(undefined, 'squid-dns');
  guarded = await startForwardProxy(`qa-ci:${PROXY_PASSWORD}`);
  tls = await startTerminator(reference.baseUrl, { identity: pki.server });
  nginxLike = await startTerminator(reference.baseUrl, {
    identity: pki.server,
    clientCa: readFileSync(pki.caFile, 'utf8'),
    refuseIn400: true,
  });
  parts.push(silent, squid, guarded, tls, nginxLike, reference);
}, 60_000);

afterAll(async () => {
  await Promise.all(parts.map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

const portOf = (part: Listening | RunningServer) => new URL(part.baseUrl).port;
const hidden = (scheme: 'http' | 'https', part: Listening | RunningServer) =>
  `${scheme}://${HIDDEN_HOST}:${portOf(part)}`;

function judge(baseUrl: string, flags: string[] = [], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(['--base-url', baseUrl, '--only', 'COLLECTION-001', ...flags], { ...keys, ...env });
}

/** Exit 2 in one or two lines holding every word; nothing secret in them. */
function expectStop(run: CliRun, ...words: (string | RegExp)[]): void {
  expect(run.status, run.stderr + run.stdout).toBe(2);
  const lines = run.stderr.split('\n').filter((line) => line !== '');
  expect(lines.length).toBeGreaterThanOrEqual(1);
  expect(lines.length).toBeLessThanOrEqual(2);
  for (const word of words) expect(run.stderr).toMatch(word);
  expect(run.stderr).not.toContain(PROXY_PASSWORD);
}

describe('a proxy that accepts and never answers', { timeout: 30_000 }, () => {
  it.each(['http', 'https'] as const)(
    '%s target: exit 2 within a few timeouts, naming the proxy, not blaming the deployment',
    async (scheme) => {
      const started = performance.now();
      const run = await judge(hidden(scheme, scheme === 'http' ? reference : tls), [
        '--proxy',
        silent.baseUrl,
        '--timeout',
        '1000',
        '--ca-file',
        pki.caFile,
      ]);
      const elapsed = performance.now() - started;
      expectStop(
        run,
        new RegExp(
          `^conformance: the proxy ${silent.baseUrl} \\(--proxy\\) accepted the connection but gave no answer within 1000 ms`,
        ),
        /Check --proxy/,
      );
      expect(run.stderr).not.toMatch(/deployment is healthy/);
      // Two timeouts (the request, then the proxy asked alone), not the minutes undici would wait.
      expect(elapsed).toBeLessThan(10_000);
    },
  );
});

describe("a proxy's own refusals", { timeout: 30_000 }, () => {
  it('squid failing DNS for an https target: its 503 and X-Squid-Error named', async () => {
    const run = await judge(`https://staging.unknown.invalid:${portOf(tls)}`, ['--proxy', squid.baseUrl]);
    expectStop(
      run,
      /the proxy http:\/\/127\.0\.0\.1:\d+ \(--proxy\) answered 503 to CONNECT \(ERR_DNS_FAIL 0\)/,
      /could not resolve the host name/,
    );
  });

  it('squid failing DNS for an http target: its answer named', async () => {
    const run = await judge(`http://staging.unknown.invalid:${portOf(reference)}`, [
      '--proxy',
      squid.baseUrl,
    ]);
    expectStop(run, /answered 503/, /could not resolve the host name/, /X-Squid-Error: ERR_DNS_FAIL 0/);
  });

  it.each(['http', 'https'] as const)(
    '%s: credentials refused (407) name the user, never the password',
    async (scheme) => {
      const url = new URL(guarded.baseUrl);
      const run = await judge(hidden(scheme, scheme === 'http' ? reference : tls), [
        '--proxy',
        `http://qa-ci:${PROXY_PASSWORD}-wrong@${url.host}`,
        '--ca-file',
        pki.caFile,
      ]);
      expectStop(run, /refused the credentials of user "qa-ci" \(407\)/, /CONFORMANCE_PROXY_PASSWORD/);
    },
  );

  it('the password from CONFORMANCE_PROXY_PASSWORD: passes, and reproductions name the variable', async () => {
    const url = new URL(guarded.baseUrl);
    const json = join(dir, 'proxy-password.json');
    const run = await judge(
      hidden('http', reference),
      ['--proxy', `http://qa-ci@${url.host}`, '--reporter', 'json', '--output', json],
      { CONFORMANCE_PROXY_PASSWORD: PROXY_PASSWORD },
    );
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.results[0]?.request?.curl).toContain(
      `-x '${url.origin}' --proxy-user "qa-ci:$CONFORMANCE_PROXY_PASSWORD"`,
    );
    expect(readFileSync(json, 'utf8')).not.toContain(PROXY_PASSWORD);
  });

  it('--proxy https:// pointing at an http proxy: names the proxy and its scheme', async () => {
    const run = await judge(hidden('https', tls), [
      '--proxy',
      guarded.baseUrl.replace(/^http:/, 'https:'),
      '--ca-file',
      pki.caFile,
    ]);
    expectStop(
      run,
      /the proxy https:\/\/127\.0\.0\.1:\d+ \(--proxy\) does not speak TLS/,
      /Give it as http:\/\/127\.0\.0\.1:\d+ in --proxy/,
    );
  });
});

describe('certificates', { timeout: 30_000 }, () => {
  it.each([
    ['expired', () => pki.expiredClient, /--cert \S+client-expired\.pem expired on \d{4}-/],
    ['not yet valid', () => pki.futureClient, /--cert \S+client-future\.pem is not valid until 2099-01-01/],
  ])(
    'a client certificate %s: exit 2 before anything is sent, saying which',
    async (_what, cert, message) => {
      const { certFile, keyFile } = cert();
      const run = await judge(nginxLike.baseUrl.replace('127.0.0.1', 'localhost'), [
        '--ca-file',
        pki.caFile,
        '--cert',
        certFile,
        '--key',
        keyFile,
      ]);
      expectStop(run, message);
    },
  );

  it('a client certificate from another CA, refused with a 400 page: not accepted, naming --cert', async () => {
    const run = await judge(`https://localhost:${portOf(nginxLike)}`, [
      '--ca-file',
      pki.caFile,
      '--cert',
      pki.strangerCertFile,
      '--key',
      pki.strangerKeyFile,
    ]);
    expectStop(run, /It did not accept the client certificate --cert \S+stranger\.pem/);
  });

  it('the server chain not signed by the CA in --ca-file: names the file and the real issuer', async () => {
    const run = await judge(`https://localhost:${portOf(tls)}`, ['--ca-file', pki.otherCaFile]);
    expectStop(
      run,
      new RegExp(
        `issued by "Reach Test CA", that the CA in --ca-file ${pki.otherCaFile.replaceAll('.', '\\.')} did not sign`,
      ),
      /Give the CA that signed/,
    );
  });
});
