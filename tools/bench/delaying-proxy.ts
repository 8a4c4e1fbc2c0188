/** A proxy that holds each request a while first, as a distant deployment would answer. */
import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A proxy that holds every request for `delayMs` before passing it on unchanged. */
export async function delayingProxy(
  target: string,
  delayMs: number,
): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const proxy = createServer((req, res) => {
    setTimeout(() => {
      const out = forward(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
          answer.pipe(res);
        },
      );
      out.once('error', () => res.destroy());
      req.pipe(out);
    }, delayMs);
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
