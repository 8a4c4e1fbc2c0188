/**
 * A deployment that cuts answers is failing, not gone: gateways in front of the reference server
 * (tools/test-support/cutting-gateways.ts) reset every answer over 64 KiB, send 404 bodies shorter
 * than their Content-Length, or break the chunked framing of some answers, and answer every other
 * request whole. Each run fails (exit 1) on ENVELOPE-016, naming the request, what the answer
 * declared and what arrived, and the client never takes the target for gone. A target that does
 * stop answering is still not judged (exit 2), with the evidence that it is gone.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import {
  brokenChunks,
  type Cut,
  resetsOverLimit,
  shortNotFound,
  startCuttingGateway,
} from '../../tools/test-support/cutting-gateways.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';
import { forward } from '../../tools/test-support/forward.ts';
import type { Report } from '../core/report-model.ts';
import { resultOf, runCli } from './harness.ts';

let dir: string;
let reference: RunningServer;
const parts: Listening[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'canvassing-cuts-'));
  reference = await startReferenceServer({ log: false });
});

afterAll(async () => {
  await Promise.all(parts.map((part) => part.close()));
  await reference?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A loaded test machine answers slowly: a timeout would leave rules unjudged for no fault of the target's. */
const LOADED = ['--timeout', '60000'];

/** A whole run against `baseUrl`: its exit status, what it printed, and its JSON report. */
async function fullRun(baseUrl: string, flags: string[] = []) {
  const json = join(dir, `${parts.length}-${Math.random().toString(36).slice(2)}.json`);
  const run = await runCli(
    ['--base-url', baseUrl, ...LOADED, '--reporter', 'json', '--output', json, ...flags],
    {
      ...reference.credentials,
    },
  );
  return { run, report: JSON.parse(readFileSync(json, 'utf8')) as Report };
}

async function gateway(cut: Cut) {
  const part = await startCuttingGateway(reference.baseUrl, cut);
  parts.push(part);
  return part;
}

/** The run failed on ENVELOPE-016 alone among the rules about answers, and no request went unsent. */
function expectCutFailure(outcome: Awaited<ReturnType<typeof fullRun>>, finding: RegExp): string[] {
  const { run, report } = outcome;
  expect(run.status, run.stderr + run.stdout.slice(-2000)).toBe(1);
  const result = resultOf(report, 'ENVELOPE-016');
  expect(result.status).toBe('fail');
  const findings = result.details ?? [result.actual];
  expect(findings.length).toBeGreaterThan(0);
  for (const problem of findings) expect(problem).toMatch(finding);
  // The target was never taken for gone: no request was left unsent for it.
  expect(JSON.stringify(report)).not.toMatch(/stopped answering/);
  expect(run.stdout + run.stderr).not.toMatch(/stopped answering/);
  return findings;
}

describe('a deployment that cuts some answers fails, naming the cut', { timeout: 240_000 }, () => {
  it('a gateway resetting answers over 64 KiB: ENVELOPE-016 names the reset request, exit 1', async () => {
    const part = await gateway(resetsOverLimit);
    const outcome = await fullRun(part.baseUrl);
    const findings = expectCutFailure(
      outcome,
      /^GET \S+\/api\/v1\/walks\?limit=\d+: the connection was closed before a complete answer \(ECONNRESET\)/,
    );
    expect(part.cuts()).toBeGreaterThanOrEqual(findings.length);
    // Every other request was answered and judged: the rules about the answers that came whole hold.
    expect(resultOf(outcome.report, 'ENVELOPE-011').status).toBe('pass');
  });

  it('404 bodies shorter than their Content-Length: ENVELOPE-016 names declared and arrived, exit 1', async () => {
    const part = await gateway(shortNotFound);
    const findings = expectCutFailure(
      await fullRun(part.baseUrl),
      /the answer was cut: status 404 declared Content-Length: (\d+), and the connection closed after \d+ bytes/,
    );
    for (const problem of findings) {
      const [, declared, arrived] = /Content-Length: (\d+).* after (\d+) bytes/.exec(problem) ?? [];
      expect(Number(arrived)).toBeLessThan(Number(declared));
    }
    expect(part.cuts()).toBeGreaterThan(100);
  });

  it('broken chunked framing on one answer in seven: ENVELOPE-016 names it, exit 1', async () => {
    const part = await gateway(brokenChunks(7));
    expectCutFailure(
      await fullRun(part.baseUrl),
      /the answer was cut: status \d+ declared Transfer-Encoding: chunked, and its framing broke after \d+ bytes/,
    );
    expect(part.cuts()).toBeGreaterThan(10);
  });
});

describe('a target that stops answering is not judged, with the evidence', { timeout: 120_000 }, () => {
  it('after answering, every connection is refused: exit 2, the request it had answered asked again', async () => {
    let answered = 0;
    const upstream = new URL(reference.baseUrl);
    const stopping = await listen((req, res) => {
      // Past its first answers the target goes: it refuses every connection from then on.
      if (++answered > 40) {
        void part.close();
        req.socket.destroy();
        return;
      }
      forward(req, res, upstream);
    });
    const part = stopping;
    parts.push(part);
    const { run, report } = await fullRun(part.baseUrl, ['--retries', '0']);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/the target stopped answering/);
    expect(run.stderr).toMatch(
      /the target stopped answering \(\d+ requests in a row got no whole answer; last: .*\); (?:GET|HEAD) \S+, which it had answered, got no answer either: connection refused/,
    );
    // The cuts made by its going are not failures: it stopped answering.
    expect(resultOf(report, 'ENVELOPE-016').status).not.toBe('fail');
  });
});
