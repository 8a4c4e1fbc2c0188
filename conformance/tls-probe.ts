/**
 * Tells a server that requires a client certificate under TLS 1.3 from one that resets
 * connections. Under TLS 1.3 the client's handshake completes before the server has judged the
 * client's (missing) certificate, so the refusal arrives afterwards as a closed connection, which
 * looks like the deployment cutting answers off. This probe opens one TLS connection with the run's
 * own TLS settings, sends nothing, and watches: a server that hangs up within moments of the
 * handshake, unasked, is refusing the client, not answering badly.
 */
import { connect } from 'node:tls';
import { isIP } from 'node:net';
import { tlsOf } from './dispatcher.ts';
import type { Reach } from './types.ts';

/** How long an idle connection is watched after the handshake. */
const WATCH_MS = 1_000;

export function closesAfterHandshake(
  baseUrl: string,
  reach: Reach | undefined,
  timeoutMs: number,
): Promise<boolean> {
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    let handshook = false;
    const socket = connect({
      host,
      port: Number(url.port) || 443,
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ...tlsOf(reach),
    });
    const done = (closed: boolean) => {
      clearTimeout(bound);
      socket.destroy();
      resolve(closed);
    };
    const bound = setTimeout(() => done(false), timeoutMs);
    socket.once('secureConnect', () => {
      handshook = true;
      setTimeout(() => done(false), WATCH_MS).unref();
    });
    socket.on('error', () => done(handshook));
    socket.once('close', () => done(handshook));
    socket.on('data', () => undefined);
  });
}
