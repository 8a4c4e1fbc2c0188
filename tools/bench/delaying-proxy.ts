/** A proxy that holds each request a while first, as a distant deployment would answer. */
import { createServer } from 'node:http';
import { forward } from '../test-support/forward.ts';
import type { AddressInfo } from 'node:net';

/** A proxy that holds every request for `delayMs` before passing it on unchanged. */
export async function delayingProxy(
  target: string,
  delayMs: number,
): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const proxy = createServer((req, res) => {
    setTimeout(() => forward(req, res, upstream), delayMs);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      }),
  };
}
