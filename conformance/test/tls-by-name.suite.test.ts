/**
 * TLS names the target, whatever `Host` a request sends: the attacker's catalogue sends a made-up
 * host (`Host: conformance-probe.invalid`, forwarding headers), and a run against an HTTPS staging
 * whose certificate names a DNS name must still connect, verify and judge every rule (AUTH-020
 * included), with a private CA, through a CONNECT tunnel, and with mutual TLS 1.2 and 1.3. Each
 * terminator here records the name every TLS connection asked for (SNI) and the `Host` every
 * request carried: the trick reaches the server, and the TLS never follows it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import type { Listening } from '../../tools/test-support/listen.ts';
import {
  type ForwardProxy,
  HIDDEN_HOST,
  makePki,
  type Pki,
  startForwardProxy,
  startTerminator,
  type TerminatorOptions,
} from '../../tools/test-support/reach-parts.ts';
import type { Report } from '../core/report-model.ts';
import { resultOf, runCli } from './harness.ts';

/** A terminator, and what its connections and requests named. */
interface Watched {
  part: Listening;
  /**
   * The SNI name of every new TLS session (`false` when a connection sent none). A resumed TLS 1.2
   * session reports none on the server's side; the client resumes only a session of the same name.
   */
  servernames: Set<string | false | null>;
  /** The `Host` header of every request. */
  hosts: Set<string>;
}

let dir: string;
let pki: Pki;
let reference: RunningServer;
let keys: Record<string, string>;
let proxy: ForwardProxy;
let plain: Watched;
let mutual12: Watched;
let mutual13: Watched;

async function watched(options: TerminatorOptions): Promise<Watched> {
  const part = await startTerminator(reference.baseUrl, options);
  const servernames = new Set<string | false | null>();
  const hosts = new Set<string>();
  part.server.on('secureConnection', (socket: TLSSocket) => {
    if (!socket.isSessionReused()) servernames.add(socket.servername);
  });
  part.server.on('request', (req: { headers: { host?: string } }) => hosts.add(req.headers.host ?? ''));
  return { part, servernames, hosts };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'canvassing-tls-name-'));
  pki = makePki(dir);
  reference = await startReferenceServer({ log: false });
  const { CONFORMANCE_WEB_BASE_URL: _web, ...rest } = reference.credentials;
  keys = rest as Record<string, string>;
  const clientCa = readFileSync(pki.caFile, 'utf8');
  proxy = await startForwardProxy();
  plain = await watched({ identity: pki.server });
  mutual12 = await watched({ identity: pki.server, clientCa, tls: 'TLSv1.2' });
  mutual13 = await watched({ identity: pki.server, clientCa, tls: 'TLSv1.3' });
}, 60_000);

afterAll(async () => {
  await Promise.all([proxy, plain, mutual12, mutual13].map((p) => ('part' in p ? p.part : p)?.close()));
  await reference?.close();
  rmSync(dir, { recursive: true, force: true });
});

const portOf = (watched: Watched) => new URL(watched.part.baseUrl).port;
const identity = () => ['--cert', pki.clientCertFile, '--key', pki.clientKeyFile];

/** A loaded test machine answers slowly: a timeout would leave rules unjudged for no fault of the target's. */
const LOADED = ['--timeout', '60000'];

/** A whole run (every rule) against `baseUrl`: its exit status, what it printed, its JSON report. */
async function fullRun(baseUrl: string, flags: string[], env: Record<string, string> = {}) {
  const json = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  const run = await runCli(
    [
      '--base-url',
      baseUrl,
      '--ca-file',
      pki.caFile,
      ...LOADED,
      '--reporter',
      'json',
      '--output',
      json,
      ...flags,
    ],
    { ...keys, ...env },
  );
  const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
  return { run, report };
}

/** The run judged every rule, AUTH-020 among them, and passed; the TLS asked only for `name`. */
function expectJudgedByName(
  outcome: Awaited<ReturnType<typeof fullRun>>,
  watched: Watched,
  name: string,
): void {
  const { run, report } = outcome;
  expect(run.status, run.stderr + run.stdout).toBe(0);
  expect(resultOf(report, 'AUTH-020').status).toBe('pass');
  expect(report.results.filter((r) => r.status === 'not-judged').map((r) => r.id)).toEqual([]);
  expect([...watched.servernames]).toEqual([name]);
  // The trick reached the server: it changes the HTTP Host only.
  expect([...watched.hosts]).toContain('conformance-probe.invalid');
}

describe('TLS by the target name, tricks included', { timeout: 240_000 }, () => {
  it('a private CA (--ca-file), localhost: every rule judged, exit 0', async () => {
    const outcome = await fullRun(`https://localhost:${portOf(plain)}`, []);
    expectJudgedByName(outcome, plain, 'localhost');
    // Read off a TLS socket of its own, by the same name and roots.
    expect(resultOf(outcome.report, 'ENVELOPE-018').status).toBe('pass');
  });

  it('mutual TLS 1.2 (--cert, --key): every rule judged, exit 0', async () => {
    const outcome = await fullRun(`https://localhost:${portOf(mutual12)}`, identity());
    expectJudgedByName(outcome, mutual12, 'localhost');
    expect(resultOf(outcome.report, 'ENVELOPE-018').status).toBe('pass');
  });

  it('mutual TLS 1.3 through a CONNECT tunnel to a name only the proxy knows: every rule judged, exit 0', async () => {
    const before = proxy.log.length;
    const outcome = await fullRun(`https://${HIDDEN_HOST}:${portOf(mutual13)}`, [
      '--proxy',
      proxy.baseUrl,
      ...identity(),
    ]);
    expectJudgedByName(outcome, mutual13, HIDDEN_HOST);
    // The bytes after a HEAD answer's headers are read off a socket of the suite's own, never
    // through a proxy: that rule is skipped, saying why.
    const wire = resultOf(outcome.report, 'ENVELOPE-018');
    expect(wire.status).toBe('skip');
    expect(wire.reason).toMatch(/through a proxy/);
    // Every tunnel was asked for the target, never for the trick's host.
    const connects = proxy.log.slice(before).filter((line) => line.startsWith('CONNECT '));
    expect(connects.length).toBeGreaterThan(0);
    expect(new Set(connects)).toEqual(new Set([`CONNECT ${HIDDEN_HOST}:${portOf(mutual13)}`]));
  });

  it('an IP address as the target: no SNI, the certificate checked against the address, AUTH-020 judged', async () => {
    const before = new Set(plain.servernames);
    const { run, report } = await fullRun(`https://127.0.0.1:${portOf(plain)}`, ['--only', 'AUTH-020']);
    expect(run.status, run.stderr + run.stdout).toBe(0);
    expect(resultOf(report, 'AUTH-020').status).toBe('pass');
    expect([...plain.servernames].filter((name) => !before.has(name))).toEqual([false]);
  });
});
