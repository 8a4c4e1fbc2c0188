/**
 * The pre-flight's answers when the first request got no answer at all: the setup stands between
 * the suite and the deployment (no route, a proxy that says no, a certificate the machine does not
 * trust, a client certificate the server wants), so the run stops (exit 2) with one or two lines
 * that name the flag that fixes it. A reset, a cut or a malformed answer is the deployment's own
 * and left to the checks, except a TLS server that hangs up on a connection that sent nothing,
 * right after the handshake or during it: that is a client certificate refused (TLS 1.3 after,
 * TLS 1.2 during), asked once more with `tls-probe.ts` to be sure.
 */
import { WALKS_PATH } from '../../spec/facts.ts';
import type { HttpClient } from './client.ts';
import { shownProxy } from './reach.ts';
import { type HandshakeEnd, howHandshakeEnds } from './tls-probe.ts';
import type { NetworkFailure, SuiteConfig } from '../core/types.ts';

/** The lines that stop the run, or undefined when the checks should judge what happened. */
export async function reachStop(
  client: HttpClient,
  config: SuiteConfig,
  error: NetworkFailure,
): Promise<string | undefined> {
  const base = config.baseUrl;
  switch (error.kind) {
    case 'refused':
    case 'dns':
    case 'connect':
      return `${base} cannot be reached: ${error.message}.\n${directHint(config)}`;
    case 'timeout':
      return `${base} accepted the connection but gave no answer within ${config.timeoutMs} ms (GET ${WALKS_PATH}).\nCheck the deployment is healthy, or raise --timeout if it is slow.`;
    case 'proxy':
      return proxyStop(client, error);
    case 'tls':
      return tlsStop(config, error);
    case 'reset':
      return resetStop(config, error, await handshakeEnd(client, config));
    case 'network':
      return `${base} cannot be reached: ${error.message}.\nCheck --base-url and its scheme (http or https).`;
    default:
      // A cut or a malformed answer is the deployment's fault: the checks report it.
      return undefined;
  }
}

/** What to try when a direct connection found nothing: the URL, or a proxy the network needs. */
function directHint(config: SuiteConfig): string {
  const host = new URL(config.baseUrl).hostname;
  const listed = config.reach?.noProxy ? ` (NO_PROXY lists ${host})` : '';
  return config.embedded
    ? 'Check --base-url and that the deployment is up.'
    : `Check --base-url and that the deployment is up; if this network reaches it through a proxy, give --proxy URL or HTTPS_PROXY${listed}.`;
}

function proxyStop(client: HttpClient, error: NetworkFailure): string {
  const proxy = client.proxy;
  const flag = proxy?.from ?? '--proxy';
  if (error.code === 'PROXY_407') {
    return `${error.message}.\nGive its credentials in the URL: ${flag === '--proxy' ? '--proxy ' : `${flag}=`}http://user:password@host:port (never printed).`;
  }
  if (error.code?.startsWith('PROXY_')) {
    return `${error.message}: it would not open a tunnel to ${client.urlOf({ path: '' })}.\nCheck the proxy allows that host and port, or list the host in NO_PROXY if it is reached directly.`;
  }
  const shown = proxy ? shownProxy(proxy) : 'the proxy';
  return `${error.message}.\nCheck ${flag} (${shown}): its host and port, and that it is up; or unset it if the target is reached directly.`;
}

/** Certificate problems name what fixes each: trust (`--ca-file`), a renewal, the host name, or `--insecure`. */
function tlsStop(config: SuiteConfig, error: NetworkFailure): string {
  const base = config.baseUrl;
  const code = error.code ?? '';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    const when = code === 'CERT_HAS_EXPIRED' ? 'has expired' : 'is not valid yet';
    return `${base} presents a TLS certificate that ${when} (${code}): the deployment's to renew.\nTo check the API meanwhile, --insecure skips verification (--ca-file and NODE_EXTRA_CA_CERTS cannot help).`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `${base} presents a TLS certificate for another host name (${code}).\nUse a host name the certificate names in --base-url, or --insecure to skip verification (--ca-file and NODE_EXTRA_CA_CERTS cannot help).`;
  }
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG') {
    return `${base} does not speak TLS there (${code}).\nCheck the scheme of --base-url: http rather than https?`;
  }
  if (CLIENT_CERT_ALERT.test(code)) return clientCertStop(config, error);
  if (error.message.startsWith('the TLS certificate')) {
    return `${base} presents a TLS certificate this machine does not trust (${code}).\nTrust its CA with --ca-file FILE (PEM) or NODE_EXTRA_CA_CERTS, or skip verification with --insecure.`;
  }
  return `${base}: ${error.message}.\nCheck the scheme of --base-url, --ca-file, and --cert/--key if the server wants a client certificate.`;
}

/**
 * Alerts of a server that refuses the client's certificate during the handshake (TLS 1.2: a
 * handshake failure; TLS 1.3 servers that say so: certificate required), or refuses the one given.
 * By the alert's name: OpenSSL 3.0 (Node 20) says `ERR_SSL_SSLV3_ALERT_…`, 3.5 (Node 22, 24)
 * `ERR_SSL_SSL/TLS_ALERT_…`.
 */
const CLIENT_CERT_ALERT =
  /^ERR_SSL_.*ALERT_(HANDSHAKE_FAILURE|CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|CERTIFICATE_EXPIRED|ACCESS_DENIED|UNSUPPORTED_CERTIFICATE)$/;

/** A reset the TLS probe explains: the client refused right after the handshake, or cut during it. */
function resetStop(config: SuiteConfig, error: NetworkFailure, end: HandshakeEnd): string | undefined {
  if (end === 'open') return undefined;
  if (end === 'after-handshake' || config.reach?.clientCert) {
    const what =
      end === 'after-handshake' ? 'closed the connection right after' : 'reset the connection during';
    return clientCertStop(config, error, `${what} the TLS handshake`);
  }
  return `${config.baseUrl} reset the connection during the TLS handshake (${error.code ?? 'reset'}).\nIf it requires a client certificate, give one with --cert FILE --key FILE; else check the scheme of --base-url.`;
}

function clientCertStop(config: SuiteConfig, error: NetworkFailure, what?: string): string {
  const base = config.baseUrl;
  const cert = config.reach?.clientCert;
  const how = what ?? `refused the TLS handshake (${error.code})`;
  if (!cert) {
    return `${base} ${how}: it requires a client certificate (mutual TLS).\nGive one with --cert FILE --key FILE (PEM; --key-passphrase-env NAME for an encrypted key).`;
  }
  return `${base} ${how}: it does not accept the client certificate --cert ${cert.certFile}.\nCheck it is the one the server trusts, issued for this environment and not expired.`;
}

/**
 * A reset on the very first request over TLS, through no tunnel: asked once more without sending
 * anything, does the server hang up on its own, during the handshake or right after it?
 */
async function handshakeEnd(client: HttpClient, config: SuiteConfig): Promise<HandshakeEnd> {
  if (!config.baseUrl.startsWith('https:') || client.proxy) return 'open';
  return howHandshakeEnds(config.baseUrl, config.reach, config.timeoutMs);
}
