/**
 * An answer whose body stops short of its Content-Length while the server keeps the connection
 * open is cut, not a timeout: `--timeout` ends the attempt, and by then the target had answered
 * (status and headers) and declared more than arrived (`failures.ts`). Nothing arrived at all, or
 * everything declared arrived: still a timeout.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../transport/client.ts';
import { listen } from '../../tools/test-support/listen.ts';
import { configFor } from './harness.ts';

/**
 * Every case here ends by it: short, so the test does not wait long, and long enough for the
 * headers and the first bytes to arrive on a loaded machine (else the cut cases read as timeouts).
 */
const TIMEOUT_MS = 1_500;

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

/** One attempt against a server that answers with `handler` and never closes the connection itself. */
async function attemptAgainst(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const listening = await listen(handler);
  const client = new HttpClient(
    configFor(listening.baseUrl, {}, { retries: 0, concurrency: 1, timeoutMs: TIMEOUT_MS }),
  );
  opened.push(client, listening);
  return client.send({ path: '/x' });
}

describe('an answer held open short of its Content-Length', () => {
  it('is a cut naming the status, the length declared and the bytes that arrived, not a timeout', async () => {
    const exchange = await attemptAgainst((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"ok":false,');
    });
    expect(exchange.error).toMatchObject({ kind: 'cut', cut: { status: 404, declared: 100, arrived: 12 } });
    expect(exchange.error?.message).toBe(
      `the answer was cut: status 404 declared Content-Length: 100, and 12 bytes had arrived when --timeout (${TIMEOUT_MS} ms) ended it`,
    );
  });

  it('headers with a length and no byte of the body: a cut of nothing arrived', async () => {
    const exchange = await attemptAgainst((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' });
      res.flushHeaders();
    });
    expect(exchange.error).toMatchObject({ kind: 'cut', cut: { status: 200, declared: 2, arrived: 0 } });
  });

  it('no headers at all: a timeout', async () => {
    const exchange = await attemptAgainst(() => undefined);
    expect(exchange.error).toMatchObject({ kind: 'timeout' });
    expect(exchange.error?.cut).toBeUndefined();
  });

  it('headers without a length, the body still coming: a timeout (nothing declared was missed)', async () => {
    const exchange = await attemptAgainst((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ok":');
    });
    expect(exchange.error).toMatchObject({ kind: 'timeout' });
  });
});
