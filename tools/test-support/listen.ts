/** A server of a test's own, on 127.0.0.1 and a free port, that it stops when done. */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';

export interface Listening {
  baseUrl: string;
  server: Server | NetServer;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1, a free port; `close` also cuts connections a hostile handler left open. */
export async function listen(handler: RequestListener | Server | NetServer): Promise<Listening> {
  const server = typeof handler === 'function' ? createServer(handler) : handler;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}
