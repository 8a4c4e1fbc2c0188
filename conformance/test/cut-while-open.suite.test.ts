/**
 * A deployment that sends an answer short of its Content-Length and holds the connection open fails
 * on ENVELOPE-016, naming what the answer declared and what arrived: the run's `--timeout` ends the
 * attempt, and the answer had begun, so it is cut, not a timeout (and the target is not taken for
 * gone). A gateway in front of the reference server holds one 404 so: a walk the suite made up.
 */
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import { heldShortNotFound, startCuttingGateway } from '../../tools/test-support/cutting-gateways.ts';
import type { Listening } from '../../tools/test-support/listen.ts';
import { WALKS_PATH } from '../../spec/facts.ts';
import { isUnknownId } from '../core/ids.ts';
import { runSuite } from '../run/runner.ts';
import { configFor, resultOf } from './harness.ts';

/** Long enough for the reference server on a loaded machine; the held answer waits it out once. */
const TIMEOUT_MS = 3_000;

/** The detail of a walk the suite made up, asked as written (no other spelling of the path). */
const unknownWalk = (req: IncomingMessage) => {
  const [path = '', id = ''] = /^(.*)\/([^/?]+)$/.exec(req.url ?? '')?.slice(1) ?? [];
  return path === WALKS_PATH && isUnknownId(id);
};

let reference: RunningServer;
let gateway: Listening & { cuts: () => number };

beforeAll(async () => {
  reference = await startReferenceServer({ log: false });
  gateway = await startCuttingGateway(reference.baseUrl, heldShortNotFound(unknownWalk));
});

afterAll(async () => {
  await gateway?.close();
  await reference?.close();
});

describe('an answer held open short of its Content-Length', { timeout: 120_000 }, () => {
  it('fails ENVELOPE-016 with the length declared and the bytes that arrived, not as a timeout', async () => {
    const report = await runSuite(
      configFor(gateway.baseUrl, reference.credentials, { timeoutMs: TIMEOUT_MS }),
    );
    expect(gateway.cuts()).toBe(1);
    const result = resultOf(report, 'ENVELOPE-016');
    expect(result.status).toBe('fail');
    const findings = result.details ?? [result.actual];
    expect(findings).toHaveLength(1);
    const [, declared, arrived] =
      /the answer was cut: status 404 declared Content-Length: (\d+), and (\d+) bytes had arrived when --timeout \(3000 ms\) ended it/.exec(
        findings[0] ?? '',
      ) ?? [];
    expect(Number(arrived)).toBeGreaterThan(0);
    expect(Number(arrived)).toBeLessThan(Number(declared));
    expect(JSON.stringify(report)).not.toMatch(/stopped answering/);
  });
});
