/**
 * The client tells a cut answer from a target gone (`failures.ts`, `liveness.ts`): an answer whose
 * body breaks off after its status is a `cut` naming what it declared and what arrived; a streak of
 * resets while the target still answers a small request it answered before goes on being sent; a
 * target that refuses everything after it answered is gone, with that request's answer as evidence.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../transport/client.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';
import { configFor } from './harness.ts';

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Listening> {
  const listening = await listen(handler);
  opened.push(listening);
  return listening;
}

function clientOf(baseUrl: string): HttpClient {
  const client = new HttpClient(configFor(baseUrl, {}, { retries: 0, concurrency: 1 }));
  opened.push(client);
  return client;
}

const small = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');

describe('a cut answer', () => {
  it('a body short of its Content-Length: a cut naming the status, the length declared and the bytes that arrived', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"ok":false,', () => res.destroy());
    });
    const exchange = await clientOf(server.baseUrl).send({ path: '/x' });
    expect(exchange.error).toMatchObject({ kind: 'cut', cut: { status: 404, declared: 100, arrived: 12 } });
    expect(exchange.error?.message).toMatch(
      /^the answer was cut: status 404 declared Content-Length: 100, and the connection closed after 12 bytes/,
    );
  });

  it('broken chunked framing: a cut saying the framing broke', async () => {
    const server = await serve((req) => {
      req.socket.end(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n',
      );
    });
    const exchange = await clientOf(server.baseUrl).send({ path: '/x' });
    expect(exchange.error).toMatchObject({ kind: 'cut', cut: { status: 200, chunked: true, arrived: 2 } });
    expect(exchange.error?.message).toMatch(
      /declared Transfer-Encoding: chunked, and its framing broke after 2 bytes/,
    );
  });
});

describe('a target gone, or not', () => {
  it('resets of large answers in a row while a small request is still answered: every request is sent', async () => {
    let asked = 0;
    const server = await serve((req, res) => {
      asked++;
      if (req.url?.startsWith('/large')) return void res.socket?.resetAndDestroy();
      small(res);
    });
    const client = clientOf(server.baseUrl);
    expect((await client.send({ path: '/small' })).response?.status).toBe(200);
    for (let i = 0; i < 10; i++) {
      expect((await client.send({ path: `/large/${i}` })).error?.kind).toBe('reset');
    }
    expect((await client.send({ path: '/small', again: 1 })).response?.status).toBe(200);
    expect(client.exchanges.some((e) => e.error?.kind === 'gave-up')).toBe(false);
    // The known request was asked again after each streak of three: 1 + 10 + 3 + 1.
    expect(asked).toBe(15);
    expect(client.sent).toBe(asked);
  });

  it('a target that refuses every connection after answering: gone, with the request asked again as evidence', async () => {
    let answered = 0;
    const server = await serve((req, res) => {
      if (++answered <= 1) return small(res);
      void server.close();
      req.socket.destroy();
    });
    const client = clientOf(server.baseUrl);
    await client.send({ path: '/small' });
    const ends = [];
    for (let i = 0; i < 5; i++) ends.push(await client.send({ path: `/next/${i}` }));
    expect(ends.map((e) => e.error?.kind)).toEqual(['reset', 'refused', 'refused', 'gave-up', 'gave-up']);
    expect(ends[3]?.error?.message).toMatch(
      /^not sent: the target stopped answering \(3 requests in a row got no whole answer; last: connection refused: nothing listens there\); GET http:\/\/127\.0\.0\.1:\d+\/small, which it had answered, got no answer either: connection refused/,
    );
  });
});
