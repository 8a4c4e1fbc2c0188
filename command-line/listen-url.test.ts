import { createServer } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isListening, listenUrl } from './listen-url.ts';

describe('listenUrl', () => {
  it.each([
    ['127.0.0.1', 'http://127.0.0.1:8080'],
    ['::1', 'http://[::1]:8080'],
    ['sandbox.internal', 'http://sandbox.internal:8080'],
    ['0.0.0.0', 'http://localhost:8080'],
    ['::', 'http://localhost:8080'],
  ])('names %s as %s', (host, url) => {
    expect(listenUrl(host, 8080)).toBe(url);
  });
});

describe('isListening', () => {
  it('is true while a server accepts on the port, and false once it has closed', async () => {
    const server = createServer((socket) => socket.destroy());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    expect(await isListening('127.0.0.1', port)).toBe(true);
    server.close();
    await once(server, 'close');
    expect(await isListening('127.0.0.1', port)).toBe(false);
  });
});
