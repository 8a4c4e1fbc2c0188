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
import type { Reach } from '../core/configuration.ts';

/** How long an idle connection is watched after the handshake. */
const WATCH_MS = 1_000;

/**
 * How the server ended an idle TLS connection: `after-handshake` (the TLS 1.3 refusal of a client
 * certificate), `during-handshake` (cut before it completed: a TLS 1.2 server refusing the
 * certificate it was given), or `open` (it kept the connection: no refusal seen).
 */
export type HandshakeEnd = 'after-handshake' | 'during-handshake' | 'open';

export function howHandshakeEnds(
  baseUrl: string,
  reach: Reach | undefined,
  timeoutMs: number,
): Promise<HandshakeEnd> {
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
    const done = (end: HandshakeEnd) => {
      clearTimeout(bound);
      socket.destroy();
      resolve(end);
    };
    const ended = () => done(handshook ? 'after-handshake' : 'during-handshake');
    const bound = setTimeout(() => done('open'), timeoutMs);
    socket.once('secureConnect', () => {
      handshook = true;
      setTimeout(() => done('open'), WATCH_MS).unref();
    });
    socket.on('error', ended);
    socket.once('close', ended);
    socket.on('data', () => undefined);
  });
}

/**
 * The issuer (common name, else organisation) of the certificate the target presents, read from a
 * connection that does not verify it and sends nothing; undefined when none came in time. It tells
 * a tester which CA `--ca-file` should have held.
 */
export function issuerOf(
  baseUrl: string,
  reach: Reach | undefined,
  timeoutMs: number,
): Promise<string | undefined> {
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port: Number(url.port) || 443,
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ...tlsOf(reach),
      rejectUnauthorized: false,
    });
    const done = (issuer: string | undefined) => {
      clearTimeout(bound);
      socket.destroy();
      resolve(issuer);
    };
    const bound = setTimeout(() => done(undefined), timeoutMs);
    socket.once('secureConnect', () => {
      const { issuer } = socket.getPeerCertificate();
      done([issuer?.CN ?? issuer?.O].flat()[0]);
    });
    socket.on('error', () => done(undefined));
  });
}
