/**
 * The pre-flight's lines when its first request (the spec's first live operation) got no answer at all: the setup stands between
 * the suite and the deployment (no route, a proxy that says no, a certificate the machine does not
 * trust, a client certificate the server wants), so the run stops (exit 2) with one or two lines
 * that name the flag that fixes it. A reset, a cut or a malformed answer is the deployment's own
 * and left to the checks, except a TLS server that hangs up on a connection that sent nothing,
 * right after the handshake or during it: that is a client certificate refused (TLS 1.3 after,
 * TLS 1.2 during), asked once more with `transport/tls-probe.ts` to be sure.
 */
import type { HttpClient } from '../../transport/client.ts';
import { askProxy, type ProxyAnswer } from '../../transport/proxy-probe.ts';
import { PROXY_PASSWORD_VARIABLE, shownProxy } from '../../transport/reach.ts';
import { type HandshakeEnd, howHandshakeEnds, issuerOf } from '../../transport/tls-probe.ts';
import type { NetworkFailure } from '../../core/exchange.ts';
import type { ProxySetting, SuiteConfig } from '../../core/configuration.ts';

/**
 * The lines that stop the run, or undefined when the checks should judge what happened. `asked` is
 * the request that got no answer, as the lines name it (`GET /api/v1/walks`).
 */
export async function noAnswerStop(
  client: HttpClient,
  config: SuiteConfig,
  error: NetworkFailure,
  asked: string,
): Promise<string | undefined> {
  const base = config.baseUrl;
  switch (error.kind) {
    case 'refused':
    case 'dns':
    case 'connect':
      return `${base} cannot be reached: ${error.message}.\n${directHint(config)}`;
    case 'timeout':
      return client.proxy
        ? proxiedTimeoutStop(
            client.proxy,
            config,
            await askProxy(client.proxy, base, config.reach, config.timeoutMs),
            asked,
          )
        : `${base} accepted the connection but gave no answer within ${config.timeoutMs} ms (${asked}).\nCheck the deployment is healthy, or raise --timeout if it is slow.`;
    case 'proxy':
      return proxyStop(client, config, error);
    case 'tls':
      return (await proxyTlsStop(client, config, error)) ?? (await tlsStop(config, error, !client.proxy));
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

async function proxyStop(client: HttpClient, config: SuiteConfig, error: NetworkFailure): Promise<string> {
  const proxy = client.proxy;
  const flag = proxy?.from ?? '--proxy';
  if (error.code === 'PROXY_407') {
    const user = proxy ? new URL(proxy.url).username : '';
    return user
      ? `${error.message}.\nCheck the password of that user (never printed), in ${flag} or ${PROXY_PASSWORD_VARIABLE}.`
      : `${error.message}.\nGive its credentials in the URL: ${flag === '--proxy' ? '--proxy ' : `${flag}=`}http://user:password@host:port (never printed).`;
  }
  if (error.code?.startsWith('PROXY_')) {
    // The tunnel's refusal carries no more than its status: the proxy is asked once more for its reason.
    const answer = proxy ? await askProxy(proxy, config.baseUrl, config.reach, config.timeoutMs) : undefined;
    const reason = answer?.kind === 'answered' && answer.reason ? ` (${answer.reason})` : '';
    return `${error.message}${reason}: it would not open a tunnel to ${client.urlOf({ path: '' })}.\n${refusalHint(answer)}`;
  }
  const shown = proxy ? shownProxy(proxy) : 'the proxy';
  return `${error.message}.\nCheck ${flag} (${shown}): its host and port, and that it is up; or unset it if the target is reached directly.`;
}

/** What to try when the proxy refused the tunnel, by what it said. */
function refusalHint(answer: ProxyAnswer | undefined): string {
  if (answer?.kind === 'answered' && answer.reason && /DNS/i.test(answer.reason)) {
    return 'The proxy could not resolve the host name: check the host in --base-url, or list it in NO_PROXY if it is reached directly.';
  }
  return 'Check the proxy allows that host and port, or list the host in NO_PROXY if it is reached directly.';
}

/**
 * No answer in time through a proxy: the proxy, asked alone, tells whose silence it was. Its own
 * silence (or a refusal) names the proxy; a proxy that answers leaves the silence to the target.
 */
function proxiedTimeoutStop(
  proxy: ProxySetting,
  config: SuiteConfig,
  answer: ProxyAnswer,
  asked: string,
): string {
  const where = `the proxy ${shownProxy(proxy)} (${proxy.from})`;
  const ms = config.timeoutMs;
  const host = new URL(config.baseUrl).host;
  switch (answer.kind) {
    case 'silent':
      return `${where} accepted the connection but gave no answer within ${ms} ms, asked for ${host} alone too.\nCheck ${proxy.from}: the proxy's host, port and health; or unset it if the target is reached directly.`;
    case 'unreachable':
    case 'no-tls':
      return `${where} gave no answer within ${ms} ms, and asked again it cannot be reached (${answer.code}).\nCheck ${proxy.from}: its scheme, host and port, and that it is up.`;
    case 'answered':
      if (answer.status >= 500) {
        const reason = answer.reason ? ` (${answer.reason})` : '';
        return `${where} gave no answer within ${ms} ms; asked again for ${host} it answered ${answer.status}${reason}.\n${refusalHint(answer)}`;
      }
      return `${config.baseUrl} gave no answer within ${ms} ms through ${where}, which answers (${asked}).\nCheck the deployment is healthy, or raise --timeout if it is slow.`;
  }
}

/** A TLS failure at an `https://` proxy that speaks no TLS: the proxy's scheme, not the target's. */
async function proxyTlsStop(
  client: HttpClient,
  config: SuiteConfig,
  error: NetworkFailure,
): Promise<string | undefined> {
  const proxy = client.proxy;
  if (!proxy?.url.startsWith('https:') || !NOT_TLS_CODES.has(error.code ?? '')) return undefined;
  const answer = await askProxy(proxy, config.baseUrl, config.reach, config.timeoutMs);
  if (answer.kind !== 'no-tls') return undefined;
  const plain = shownProxy(proxy).replace(/^https:/, 'http:');
  return `the proxy ${shownProxy(proxy)} (${proxy.from}) does not speak TLS (${answer.code}): it is an http proxy.\nGive it as ${plain} in ${proxy.from}.`;
}

/** OpenSSL's words for bytes that are no TLS record: plain HTTP where TLS was expected. */
const NOT_TLS_CODES = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG']);

/** Node's codes of a chain no trusted CA signed. */
const UNTRUSTED_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
]);

/** Certificate problems name what fixes each: trust (`--ca-file`), a renewal, the host name, or `--insecure`. */
async function tlsStop(config: SuiteConfig, error: NetworkFailure, direct: boolean): Promise<string> {
  const base = config.baseUrl;
  const code = error.code ?? '';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    const when = code === 'CERT_HAS_EXPIRED' ? 'has expired' : 'is not valid yet';
    return `${base} presents a TLS certificate that ${when} (${code}): the deployment's to renew.\nTo check the API meanwhile, --insecure skips verification (--ca-file and NODE_EXTRA_CA_CERTS cannot help).`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `${base} presents a TLS certificate for another host name (${code}).\nUse a host name the certificate names in --base-url, or --insecure to skip verification (--ca-file and NODE_EXTRA_CA_CERTS cannot help).`;
  }
  if (NOT_TLS_CODES.has(code)) {
    return `${base} does not speak TLS there (${code}).\nCheck the scheme of --base-url: http rather than https?`;
  }
  if (CLIENT_CERT_ALERT.test(code)) return clientCertStop(config, error);
  if (config.reach?.ca && UNTRUSTED_CODES.has(code)) {
    const issuer = direct ? await issuerOf(config.baseUrl, config.reach, config.timeoutMs) : undefined;
    const by = issuer ? `, issued by ${JSON.stringify(issuer)},` : '';
    return `${base} presents a TLS certificate${by} that the CA in --ca-file ${config.reach.ca.file} did not sign (${code}).\nGive the CA that signed the deployment's certificate (its chain's root) in --ca-file.`;
  }
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
