/**
 * The bytes after the headers of an answer that has no content (HEAD, 204, 304), read off the
 * socket, since an HTTP client drops them. `rawAnswer` counts them on a raw server that writes them,
 * and stops on the server's close or its silence after the headers; ENVELOPE-018 fails a deployment
 * that writes the GET body after a HEAD answer's headers, and passes the reference server.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawAnswer } from '../transport/raw-answer.ts';
import { runSuite } from '../run/runner.ts';
import { configFor, resultOf } from './harness.ts';
import type { MutationServer } from '../../tools/test-support/mutations.ts';
import { MUTATIONS, startMutationServer } from '../../tools/test-support/mutations.ts';

/** A raw server answering every request with `answer`, then closing or keeping the connection. */
async function rawServer(answer: string, keepOpen: boolean): Promise<{ origin: string; server: Server }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.once('data', () => (keepOpen ? socket.write(answer) : socket.end(answer)));
  });
  server.on('close', () => sockets.forEach((s) => s.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${address.port}`, server };
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.emit('close');
  });

const ask = (origin: string, method: string) =>
  rawAnswer({
    origin,
    method,
    target: '/api/v1/walks',
    headers: {},
    tls: {},
    signal: new AbortController().signal,
  });

describe('an answer read off the socket', () => {
  it('counts the bytes a HEAD answer carries after its headers, until the server closes', async () => {
    const body = '{"ok":true,"data":[]}';
    const { origin, server } = await rawServer(
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      false,
    );
    try {
      const answer = await ask(origin, 'HEAD');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-length']).toBe(String(body.length));
      expect(answer.afterHeaders).toBe(body.length);
    } finally {
      await close(server);
    }
  });

  it('ends on silence after the headers when the server keeps the connection, and counts nothing after a clean 304', async () => {
    const { origin, server } = await rawServer('HTTP/1.1 304 Not Modified\r\nETag: "a"\r\n\r\n', true);
    try {
      const answer = await ask(origin, 'GET');
      expect(answer).toEqual({ status: 304, headers: { etag: '"a"' }, afterHeaders: 0 });
    } finally {
      await close(server);
    }
  });
});

describe('ENVELOPE-018 on a deployment', { timeout: 120_000 }, () => {
  let target: MutationServer;
  beforeAll(async () => {
    target = await startMutationServer();
  });
  afterAll(async () => {
    await target.close();
  });

  it('passes the reference server, judging HEAD on the collection and the item', async () => {
    const report = await runSuite(configFor(target.urlOf('none'), target.world.credentials));
    const result = resultOf(report, 'ENVELOPE-018');
    expect(result.status, result.actual).toBe('pass');
    // HEAD on the collection and on an item, and the 304 to the item's revalidation with its ETag.
    expect(result.judged?.records).toBe(3);
  });

  it('fails a deployment that writes the GET body after the headers of its HEAD answers, and never prints a key', async () => {
    const broken = MUTATIONS.find((m) => m.name === 'head-body-on-wire');
    if (!broken) throw new Error('the head-body-on-wire variant is gone');
    const report = await runSuite(configFor(target.urlOf(broken), target.world.credentials));
    const result = resultOf(report, 'ENVELOPE-018');
    expect(result.status).toBe('fail');
    expect(JSON.stringify(result)).toMatch(/HEAD .*bytes followed the headers of an answer to HEAD \(200\)/);
    // METHODS-006 sees the body the HTTP client dropped, too.
    expect(resultOf(report, 'METHODS-006').actual).toMatch(/body bytes/);
    const text = JSON.stringify(report);
    const keys = Object.entries(target.world.credentials).filter(([name]) => name.endsWith('_KEY'));
    expect(keys.length).toBeGreaterThan(0);
    for (const [name, key] of keys) if (key) expect(text.includes(key), name).toBe(false);
  });
});
