/**
 * The undici dispatcher the client sends through, composed from the run's reach (`reach.ts`) with
 * undici's public classes only: an `Agent` for a direct connection, a `ProxyAgent` through a proxy.
 * Through a proxy, an http target is asked with absolute-URI requests (`proxyTunnel: false`) and an
 * https target through CONNECT, as curl does. TLS options (extra trusted roots, no verification, a
 * client certificate) apply to the target's connection, inside the tunnel when there is one.
 * The client talks to one origin only (it never follows a redirect), so the proxy is chosen once.
 * TLS always names the base URL's host (SNI and the certificate's check), whatever `Host` a request
 * sends: undici would otherwise take the name from the `Host` header, and the attacker's catalogue
 * sends a made-up one, which is about the HTTP layer only (a gateway reading `Host`), not the TLS.
 * Every connection undici opens, to the target or to the proxy, has `--timeout` for its headers and
 * body (a proxy's answer to CONNECT included), so no attempt the client gave up on lingers, and
 * `--max-response-bytes` as undici's own size cap (`maxResponseSize`): an answer whose body grows
 * past it is cut off there and its connection closed.
 */
import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher, Pool, ProxyAgent } from 'undici';
import { proxyFor } from './reach.ts';
import type { ProxySetting, Reach, SuiteConfig } from '../core/configuration.ts';

export type DispatcherOptions = Pick<
  SuiteConfig,
  'baseUrl' | 'concurrency' | 'timeoutMs' | 'maxResponseBytes' | 'reach'
> & {
  embedded?: boolean;
};

export interface Route {
  dispatcher: Dispatcher;
  /** The proxy the requests go through; undefined for a direct connection. */
  proxy?: ProxySetting;
}

/** TLS settings of a connection, as undici's connector takes them (`tls.connect` options). */
export type TlsOptions = Pick<
  tls.ConnectionOptions,
  'ca' | 'cert' | 'key' | 'passphrase' | 'rejectUnauthorized'
>;

export function routeOf(options: DispatcherOptions): Route {
  // Shorter than the request timeout, so a host that never accepts is told from one that never answers.
  const timeout = Math.max(50, Math.floor(options.timeoutMs * 0.8));
  const pool = {
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connections: options.concurrency,
    maxResponseSize: options.maxResponseBytes,
    // Short: a reset on a pooled socket the server already closed would read as the target's fault.
    keepAliveTimeout: 2_000,
  };
  const targetTls = targetTlsOf(options);
  // The embedded reference server is in this process: no proxy stands between.
  const proxy = options.embedded ? undefined : proxyFor(options.baseUrl, options.reach);
  if (!proxy) {
    return { dispatcher: new Agent({ ...pool, connect: byTargetName({ timeout, ...targetTls }) }) };
  }
  // Pools of undici's own, given the run's timeouts: its defaults wait five minutes for a proxy's
  // answer to CONNECT (`clientFactory`) and for an answer through a proxy without a tunnel (`factory`).
  const bounded = (origin: string | URL, options: Pool.Options) => new Pool(origin, { ...pool, ...options });
  const dispatcher = new ProxyAgent({
    ...pool,
    uri: proxy.url,
    factory: bounded,
    clientFactory: bounded,
    proxyTunnel: false,
    requestTls: { timeout, ...targetTls },
    proxyTls: { timeout, ...proxyTlsOf(targetTls) },
  });
  return { dispatcher, proxy };
}

/** The TLS options of a connection to the target: the run's (`tlsOf`), naming the base URL's host. */
export function targetTlsOf(
  options: Pick<DispatcherOptions, 'baseUrl' | 'reach'>,
): TlsOptions & { servername?: string } {
  return { ...tlsOf(options.reach), ...serverNameOf(options.baseUrl) };
}

/**
 * The name TLS asks for and checks (`servername`): the base URL's host, none for an IP address
 * (SNI carries no address; Node then checks the certificate against the address itself).
 */
function serverNameOf(baseUrl: string): { servername?: string } {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) === 0 ? { servername: host } : {};
}

/**
 * undici's own connector, told the target's name on every connection: undici hands a connector the
 * name it took from the request's `Host` header, and that would win over the connector's options.
 * Without a name (an IP target) the connector falls back to the origin's host, never `Host`.
 */
function byTargetName(
  options: buildConnector.BuildOptions & { servername?: string },
): buildConnector.connector {
  const connect = buildConnector(options);
  const { servername } = options;
  return (connection, callback) => connect({ ...connection, servername }, callback);
}

/** An https proxy is trusted as the target is; the client certificate is the target's alone. */
export function proxyTlsOf(targetTls: TlsOptions): TlsOptions {
  const { ca, rejectUnauthorized } = targetTls;
  return { ...(ca ? { ca } : {}), ...(rejectUnauthorized === false ? { rejectUnauthorized } : {}) };
}

export function tlsOf(reach: Reach | undefined): TlsOptions {
  const options: TlsOptions = {};
  if (!reach) return options;
  if (reach.ca) options.ca = [...defaultRoots(), reach.ca.pem];
  if (reach.insecure) options.rejectUnauthorized = false;
  if (reach.clientCert) {
    options.cert = reach.clientCert.cert;
    options.key = reach.clientCert.key;
    if (reach.clientCert.passphrase !== undefined) options.passphrase = reach.clientCert.passphrase;
  }
  return options;
}

/**
 * The roots Node trusts without `ca`: a `ca` option replaces them, and `--ca-file` adds to them.
 * Node 22.15+ lists them all (`getCACertificates`); before, the bundled roots plus the file of
 * `NODE_EXTRA_CA_CERTS`, which Node itself reads from the process environment.
 */
function defaultRoots(): string[] {
  const list = (tls as { getCACertificates?: (type: 'default') => string[] }).getCACertificates;
  if (list) return list('default');
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (!extra) return [...tls.rootCertificates];
  try {
    return [...tls.rootCertificates, readFileSync(extra, 'utf8')];
  } catch {
    // Node warned about the unreadable file at start-up and trusts the bundled roots alone: so does the suite.
    return [...tls.rootCertificates];
  }
}
