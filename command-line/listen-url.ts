/**
 * The URL a listener is reached at, as a banner names it. An unspecified address (`0.0.0.0`, `::`)
 * is where a server listens, not where anyone can reach it: there the URL names `localhost`, the
 * address of this machine, and, in a container, of the host whose published port leads in. And
 * whether a listener is there yet.
 */
import { connect, isIPv6 } from 'node:net';

const UNSPECIFIED = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0']);

export function listenUrl(host: string, port: number): string {
  const reached = UNSPECIFIED.has(host) ? 'localhost' : host;
  return `http://${isIPv6(reached) ? `[${reached}]` : reached}:${port}`;
}

/** Whether something accepts TCP connections on host:port right now (the connection is closed at once). */
export function isListening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}
