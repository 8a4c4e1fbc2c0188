/**
 * The suite reaches staging the way QA's CI does, through real parts on 127.0.0.1 (see
 * reach-parts.ts): a forward proxy that alone resolves the target's host name, an HTTPS terminator
 * with the test's own CA, one that requires a client certificate (TLS 1.2 and 1.3), and a gateway
 * that wants a header. With the flag each passes; without it each is exit 2 in one or two lines
 * naming the flag; no secret (header value, proxy password, passphrase) reaches any output.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import type { Report } from '../core/report-model.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';
import { type CliRun, junitTotals, runCli } from './harness.ts';
import {
  type ForwardProxy,
  HIDDEN_HOST,
  makePki,
  type Pki,
  startForwardProxy,
  startHeaderGate,
  startTerminator,
} from '../../tools/test-support/reach-parts.ts';

const GATE_HEADER = 'X-Gateway-Token';
const GATE_VALUE = 'gw-token-5e1d9a7c-never-printed';
const PROXY_PASSWORD = 'proxy-pass-83b2f1-never-printed';

let dir: string;
let pki: Pki;
let reference: RunningServer;
let keys: Record<string, string>;
let proxy: ForwardProxy;
/** A proxy that wants `qa-ci:PROXY_PASSWORD`. */
let guarded: ForwardProxy;
const parts: Listening[] = [];
let tls: Listening;
let expired: Listening;
let otherHost: Listening;
let mutual12: Listening;
let mutual13: Listening;
let gate: Listening;
let closedPort: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'canvassing-reach-'));
  pki = makePki(dir);
  reference = await startReferenceServer({ log: false });
  const { CONFORMANCE_WEB_BASE_URL: _web, ...rest } = reference.credentials;
  keys = rest as Record<string, string>;
  const origin = reference.baseUrl;
  const clientCa = readFileSync(pki.caFile, 'utf8');
  proxy = await startForwardProxy();
  guarded = await startForwardProxy(`qa-ci:${PROXY_PASSWORD}`);
  tls = await startTerminator(origin, { identity: pki.server });
  expired = await startTerminator(origin, { identity: pki.expired });
  otherHost = await startTerminator(origin, { identity: pki.otherHost });
  mutual12 = await startTerminator(origin, { identity: pki.server, clientCa, tls: 'TLSv1.2' });
  mutual13 = await startTerminator(origin, { identity: pki.server, clientCa, tls: 'TLSv1.3' });
  gate = await startHeaderGate(origin, GATE_HEADER, GATE_VALUE);
  parts.push(proxy, guarded, tls, expired, otherHost, mutual12, mutual13, gate);
  const closed = await listen(() => undefined);
  closedPort = new URL(closed.baseUrl).port;
  await closed.close();
}, 60_000);

afterAll(async () => {
  await Promise.all(parts.map((p) => p.close()));
  await reference?.close();
  rmSync(dir, { recursive: true, force: true });
});

const portOf = (part: Listening) => new URL(part.baseUrl).port;
const hidden = (scheme: 'http' | 'https', part: Listening | RunningServer) =>
  `${scheme}://${HIDDEN_HOST}:${new URL(part.baseUrl).port}`;
const localhost = (part: Listening) => `https://localhost:${portOf(part)}`;
const linesOf = (text: string) => text.split('\n').filter((line) => line !== '');

/** One quick check through the way there: enough to prove the target was reached and judged. */
function judge(baseUrl: string, flags: string[] = [], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(['--base-url', baseUrl, '--only', 'COLLECTION-001', ...flags], { ...keys, ...env });
}

function expectStop(run: CliRun, ...words: (string | RegExp)[]): void {
  if (process.env.SHOW_STOPS) console.log(run.stderr);
  expect(run.status, run.stderr + run.stdout).toBe(2);
  const lines = linesOf(run.stderr);
  expect(lines.length).toBeGreaterThanOrEqual(1);
  expect(lines.length).toBeLessThanOrEqual(2);
  for (const word of words) expect(run.stderr).toMatch(word);
}

describe('a forward proxy', { timeout: 30_000 }, () => {
  it('--proxy: an http target goes through it as absolute-URI requests', async () => {
    const before = proxy.log.length;
    const run = await judge(hidden('http', reference), ['--proxy', proxy.baseUrl]);
    expect(run.status, run.stderr).toBe(0);
    expect(proxy.log.slice(before)).toContain(`GET ${hidden('http', reference)}/api/v1/walks`);
  });

  it.each(['HTTP_PROXY', 'http_proxy'])('%s is honoured for an http target', async (name) => {
    const before = proxy.log.length;
    const run = await judge(hidden('http', reference), [], { [name]: proxy.baseUrl });
    expect(run.status, run.stderr).toBe(0);
    expect(proxy.log.length).toBeGreaterThan(before);
  });

  it.each(['HTTPS_PROXY', 'https_proxy'])('%s carries an https target through CONNECT', async (name) => {
    const before = proxy.log.length;
    const run = await judge(hidden('https', tls), ['--ca-file', pki.caFile], { [name]: proxy.baseUrl });
    expect(run.status, run.stderr).toBe(0);
    expect(proxy.log.slice(before)).toContain(`CONNECT ${HIDDEN_HOST}:${portOf(tls)}`);
  });

  it('CONFORMANCE_PROXY is --proxy from the environment', async () => {
    const run = await judge(hidden('http', reference), [], { CONFORMANCE_PROXY: proxy.baseUrl });
    expect(run.status, run.stderr).toBe(0);
  });

  it('without it the host is not found: exit 2 naming --proxy', async () => {
    expectStop(await judge(hidden('http', reference)), /host name not found/, /--proxy/);
  });

  it('NO_PROXY listing the host goes direct, and says NO_PROXY lists it', async () => {
    const run = await judge(hidden('http', reference), [], {
      HTTP_PROXY: proxy.baseUrl,
      NO_PROXY: `.canvassing.invalid`,
    });
    expectStop(run, /host name not found/, /NO_PROXY lists/);
  });

  it('a proxy that cannot be reached: exit 2 naming where it was set', async () => {
    const run = await judge(hidden('http', reference), ['--proxy', `http://127.0.0.1:${closedPort}`]);
    expectStop(run, /the proxy http:\/\/127\.0\.0\.1:\d+ \(--proxy\) cannot be reached/, /Check --proxy/);
  });

  it('a proxy that refuses CONNECT: exit 2, the tunnel refused', async () => {
    const run = await judge(`https://elsewhere.invalid:${portOf(tls)}`, [], { HTTPS_PROXY: proxy.baseUrl });
    expectStop(run, /answered 502 to CONNECT/, /would not open a tunnel/, /NO_PROXY/);
  });

  it('a proxy that cannot reach an http target answers 502: exit 2, the proxy could not reach it', async () => {
    const run = await judge(`http://elsewhere.invalid:${portOf(tls)}`, [], { HTTP_PROXY: proxy.baseUrl });
    expectStop(
      run,
      /answered 502 text\/plain/,
      /The proxy http:\/\/127\.0\.0\.1:\d+ \(HTTP_PROXY\) could not reach the target/,
    );
  });

  it('the embedded reference server (no base URL) is in this process: no proxy stands between', async () => {
    const deadProxy = `http://127.0.0.1:${closedPort}`;
    const run = await runCli(['--only', 'COLLECTION-001', '--proxy', deadProxy], { HTTP_PROXY: deadProxy });
    expect(run.status, run.stderr).toBe(0);
  });

  it('a proxy that wants credentials: exit 2 saying how to give them', async () => {
    const run = await judge(hidden('http', reference), ['--proxy', guarded.baseUrl]);
    expectStop(run, /asks for credentials \(407\)/, /--proxy http:\/\/user:password@host:port/);
  });

  it.each(['http', 'https'] as const)(
    "%s: the proxy's credentials are sent, and never printed in output or report",
    async (scheme) => {
      const url = new URL(guarded.baseUrl);
      const withCredentials = `http://qa-ci:${PROXY_PASSWORD}@${url.host}`;
      const json = join(dir, `proxy-${scheme}.json`);
      const har = join(dir, `proxy-${scheme}.har`);
      const before = guarded.log.length;
      const target = scheme === 'http' ? hidden('http', reference) : hidden('https', tls);
      const flags = ['--proxy', withCredentials, '--ca-file', pki.caFile, '--reporter', 'json'];
      const run = await judge(target, [...flags, '--output', json, '--har', har]);
      expect(guarded.log.length).toBeGreaterThan(before);
      expect(run.status, run.stderr).toBe(0);
      const everything = [run.stdout, run.stderr, readFileSync(json, 'utf8'), readFileSync(har, 'utf8')].join(
        '\n',
      );
      expect(everything).not.toContain(PROXY_PASSWORD);
      const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
      expect(report.target.reach?.proxy).toBe(`${url.origin} (--proxy)`);
      // The reproduction goes the same way: the user named, curl asks for the password it was not given.
      expect(report.results[0]?.request?.curl).toContain(
        `curl -sS -i -x '${url.origin}' --proxy-user 'qa-ci' --cacert '${pki.caFile}' '${target}/api/v1/walks'`,
      );
    },
  );
});

describe(
  'TLS: a private CA, --insecure, and the certificates a setup gets wrong',
  { timeout: 30_000 },
  () => {
    it('an untrusted certificate: exit 2 naming --ca-file, NODE_EXTRA_CA_CERTS and --insecure', async () => {
      expectStop(
        await judge(localhost(tls)),
        /does not trust/,
        /--ca-file/,
        /NODE_EXTRA_CA_CERTS/,
        /--insecure/,
      );
    });

    it('--ca-file trusts the private CA', async () => {
      const run = await judge(localhost(tls), ['--ca-file', pki.caFile]);
      expect(run.status, run.stderr).toBe(0);
    });

    it('--insecure passes without verifying, and the console and the reports say so', async () => {
      const json = join(dir, 'insecure.json');
      const run = await judge(localhost(tls), [
        '--insecure',
        '--reporter',
        'json,html,junit',
        '--output',
        json,
        '--output',
        join(dir, 'insecure.html'),
        '--output',
        join(dir, 'insecure.xml'),
      ]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(
        /warning: --insecure: the TLS certificate of https:\/\/localhost:\d+ was not verified/,
      );
      expect((JSON.parse(readFileSync(json, 'utf8')) as Report).target.reach?.insecure).toBe(true);
      expect(readFileSync(join(dir, 'insecure.html'), 'utf8')).toContain(
        '--insecure: TLS certificates were not verified',
      );
      const junit = readFileSync(join(dir, 'insecure.xml'), 'utf8');
      expect(junit).toContain('<property name="insecure" value="true"/>');
      expect(junitTotals(junit).tests).toBe(junit.match(/<testcase /g)?.length);
      expect(junit).toContain('--insecure: TLS certificates were not verified');
    });

    it('--insecure --quiet still says so', async () => {
      const run = await judge(localhost(tls), ['--insecure', '--quiet']);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain('--insecure: TLS certificates were not verified');
    });

    it('an expired certificate: exit 2, expired, naming --insecure', async () => {
      expectStop(
        await judge(localhost(expired), ['--ca-file', pki.caFile]),
        /has expired \(CERT_HAS_EXPIRED\)/,
        /--insecure/,
      );
    });

    it('a certificate for another host: exit 2, another host name', async () => {
      expectStop(
        await judge(localhost(otherHost), ['--ca-file', pki.caFile]),
        /another host name/,
        /--insecure/,
      );
    });

    it('through a CONNECT tunnel, the certificate is judged the same (untrusted, another host)', async () => {
      const env = { HTTPS_PROXY: proxy.baseUrl };
      expectStop(await judge(hidden('https', tls), [], env), /does not trust/, /--ca-file/);
      expectStop(
        await judge(hidden('https', otherHost), ['--ca-file', pki.caFile], env),
        /another host name/,
      );
    });

    it('an https URL where the server speaks plain HTTP: exit 2, check the scheme', async () => {
      const run = await judge(reference.baseUrl.replace(/^http:/, 'https:'));
      expectStop(run, /does not speak TLS there/, /http rather than https/);
    });

    it('--ca-file naming a missing file: exit 2', async () => {
      expectStop(
        await judge(localhost(tls), ['--ca-file', join(dir, 'missing.pem')]),
        /--ca-file .* cannot be read \(ENOENT\)/,
      );
    });
  },
);

describe('mutual TLS', { timeout: 30_000 }, () => {
  const identity = () => ['--ca-file', pki.caFile, '--cert', pki.clientCertFile, '--key', pki.clientKeyFile];

  it.each([
    ['TLS 1.2, refused during the handshake', () => mutual12],
    ['TLS 1.3, closed after the handshake', () => mutual13],
  ])('%s: without a client certificate exit 2 naming --cert and --key', async (_name, server) => {
    expectStop(
      await judge(localhost(server()), ['--ca-file', pki.caFile]),
      /requires a client certificate/,
      /--cert FILE --key FILE/,
    );
  });

  it.each([
    ['TLS 1.2', () => mutual12],
    ['TLS 1.3', () => mutual13],
  ])('%s: --cert and --key pass', async (_name, server) => {
    const run = await judge(localhost(server()), identity());
    expect(run.status, run.stderr).toBe(0);
  });

  it.each([
    ['TLS 1.2', () => mutual12],
    ['TLS 1.3', () => mutual13],
  ])(
    '%s: a client certificate the server does not trust: exit 2 saying it was not accepted',
    async (_name, server) => {
      const run = await judge(localhost(server()), [
        '--ca-file',
        pki.caFile,
        '--cert',
        pki.strangerCertFile,
        '--key',
        pki.strangerKeyFile,
      ]);
      expectStop(run, /does not accept the client certificate --cert .*stranger\.pem/);
    },
  );

  it('an encrypted key with its passphrase from --key-passphrase-env; the passphrase is never printed', async () => {
    const har = join(dir, 'mtls.har');
    const json = join(dir, 'mtls.json');
    const run = await judge(
      localhost(mutual13),
      [
        '--ca-file',
        pki.caFile,
        '--cert',
        pki.clientCertFile,
        '--key',
        pki.encryptedKeyFile,
        '--key-passphrase-env',
        'QA_KEY_PASS',
        '--har',
        har,
        '--reporter',
        'json',
        '--output',
        json,
      ],
      { QA_KEY_PASS: pki.passphrase },
    );
    expect(run.status, run.stderr).toBe(0);
    const reportText = readFileSync(json, 'utf8');
    expect([run.stdout, run.stderr, readFileSync(har, 'utf8'), reportText].join('\n')).not.toContain(
      pki.passphrase,
    );
    const curl = (JSON.parse(reportText) as Report).results[0]?.request?.curl;
    expect(curl).toContain(
      `--cacert '${pki.caFile}' --cert '${pki.clientCertFile}' --key '${pki.encryptedKeyFile}' --pass "$QA_KEY_PASS"`,
    );
  });

  it.each([
    [
      ['--key', 'ENCRYPTED'],
      /is encrypted: name the variable holding its passphrase with --key-passphrase-env/,
    ],
    [
      ['--key', 'ENCRYPTED', '--key-passphrase-env', 'QA_WRONG'],
      /does not decrypt with the passphrase in QA_WRONG/,
    ],
    [['--key', 'ENCRYPTED', '--key-passphrase-env', 'QA_UNSET'], /names QA_UNSET, which is not set/],
    [[], /needs both --cert FILE and --key FILE/],
  ])('unusable identity %j: exit 2 before anything is sent', async (extra, message) => {
    const args = extra.map((a) => (a === 'ENCRYPTED' ? pki.encryptedKeyFile : a));
    const run = await judge(localhost(mutual13), ['--cert', pki.clientCertFile, ...args], {
      QA_WRONG: 'not-the-passphrase',
    });
    expectStop(run, message);
  });
});

describe('a gateway header', { timeout: 30_000 }, () => {
  it("without it: exit 2, a 401 from something in front of the API, 'does it need a --header?'", async () => {
    expectStop(await judge(gate.baseUrl), /answered 401 from something in front of the API/, /--header/);
  });

  it('--header passes; reproductions and the HAR show its variable, never its value', async () => {
    const har = join(dir, 'gate.har');
    const json = join(dir, 'gate.json');
    const run = await judge(gate.baseUrl, [
      '--header',
      `${GATE_HEADER}: ${GATE_VALUE}`,
      '--har',
      har,
      '--reporter',
      'json',
      '--output',
      json,
    ]);
    expect(run.status, run.stderr).toBe(0);
    const harText = readFileSync(har, 'utf8');
    expect(harText).toContain('"value": "$CONFORMANCE_HEADER_X_GATEWAY_TOKEN"');
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.results[0]?.request?.curl).toContain(
      `-H "${GATE_HEADER}: $CONFORMANCE_HEADER_X_GATEWAY_TOKEN"`,
    );
    expect(report.target.reach?.headers).toEqual([GATE_HEADER]);
    for (const text of [run.stdout, run.stderr, harText, readFileSync(json, 'utf8')])
      expect(text).not.toContain(GATE_VALUE);
  });

  it('CONFORMANCE_HEADERS, one per line, passes too; a short value is no secret and leaves reports alone', async () => {
    const json = join(dir, 'headers-env.json');
    const run = await judge(gate.baseUrl, ['--reporter', 'json', '--output', json], {
      CONFORMANCE_HEADERS: `X-Debug: 1\n${GATE_HEADER}: ${GATE_VALUE}\n`,
    });
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    // The pre-flight's list and the discovery of what the collection lists to each campaign's key.
    expect(report.requests.sent).toBeLessThanOrEqual(4);
    expect(report.target.reach?.headers).toEqual(['X-Debug', GATE_HEADER]);
  });

  it.each(['x-api-key: abc', 'Authorization: Bearer abc', 'no colon here'])(
    '--header %j is refused (exit 2)',
    async (header) => {
      const run = await judge(gate.baseUrl, ['--header', header]);
      expectStop(run, /--header #1/);
      expect(run.stderr).not.toContain('abc');
    },
  );
});

describe('setup, not deployment: the rest of the pre-flight', { timeout: 30_000 }, () => {
  it("the API's own 404 envelope on the list route: exit 2, 'is the path prefix right?'", async () => {
    expectStop(
      await judge(`${reference.baseUrl}/wrong-prefix`),
      /404 in the API's own error envelope \(not_found\)/,
      /Is the path prefix right\?/,
    );
  });

  it('an exit 2 run writes coherent reports: JUnit <error> with matching counts, JSON and HTML "not judged"', async () => {
    const [junit, json, html] = ['r.junit.xml', 'r.json', 'r.html'].map((f) => join(dir, f)) as [
      string,
      string,
      string,
    ];
    const run = await judge(gate.baseUrl, [
      '--reporter',
      'junit,json,html',
      '--output',
      junit,
      '--output',
      json,
      '--output',
      html,
    ]);
    expect(run.status).toBe(2);
    const xml = readFileSync(junit, 'utf8');
    expect(junitTotals(xml)).toEqual({ tests: 1, failures: 0, errors: 1, skipped: 0 });
    expect(xml.match(/<testcase /g)).toHaveLength(1);
    expect(xml).toMatch(
      /<error type="not judged" message="GET [^"]*answered 401 from something in front of the API/,
    );
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.summary.verdict).toBe('not judged');
    expect(report.unreachable).toMatch(/--header/);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<span class="verdict not-judged">NOT JUDGED</span>');
    expect(page).not.toContain('required check(s) failed');
  });
});
