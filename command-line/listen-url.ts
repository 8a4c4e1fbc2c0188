/**
 * The URL a listener is reached at, as a banner names it. An unspecified address (`0.0.0.0`, `::`)
 * is where a server listens, not where anyone can reach it: there the URL names `localhost`, the
 * address of this machine, and, in a container, of the host whose published port leads in.
 */
import { isIPv6 } from 'node:net';

const UNSPECIFIED = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0']);

export function listenUrl(host: string, port: number): string {
  const reached = UNSPECIFIED.has(host) ? 'localhost' : host;
  return `http://${isIPv6(reached) ? `[${reached}]` : reached}:${port}`;
}
