/**
 * Asks the proxy itself, once, when the first request through it got no usable answer: a CONNECT
 * to the target's host and port, sending nothing to the target. It tells a proxy that accepts
 * connections and never answers (the run names the proxy, not the deployment) from a target that
 * is silent behind a proxy that works, reads why a proxy refused (squid says `X-Squid-Error:
 * ERR_DNS_FAIL`), and whether an `https://` proxy speaks TLS at all. Like the client, it does not
 * wait for undici past its deadline: undici cannot abort a CONNECT still waiting for its answer.
 */
import { Client } from 'undici';
import { proxyTlsOf, tlsOf } from './dispatcher.ts';
import type { ProxySetting, Reach } from '../core/configuration.ts';

export type ProxyAnswer =
  /** It answered CONNECT: its status, and the reason it gave when it said one. */
  | { kind: 'answered'; status: number; reason?: string }
  /** It accepted the connection and said nothing within the timeout. */
  | { kind: 'silent' }
  /** No TLS at an `https://` proxy's address. */
  | { kind: 'no-tls'; code: string }
  | { kind: 'unreachable'; code: string };

/** Headers in which proxies say why they refused, squid's first. */
const REASON_HEADERS = ['x-squid-error', 'proxy-status', 'x-proxy-error'];

export async function askProxy(
  proxy: ProxySetting,
  baseUrl: string,
  reach: Reach | undefined,
  timeoutMs: number,
): Promise<ProxyAnswer> {
  const url = new URL(proxy.url);
  const target = new URL(baseUrl);
  const hostPort = `${target.hostname}:${target.port || (target.protocol === 'https:' ? '443' : '80')}`;
  const headers: Record<string, string> = { host: hostPort };
  if (url.username) {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers['proxy-authorization'] = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  const client = new Client(url.origin, {
    connect: { timeout: timeoutMs, ...proxyTlsOf(tlsOf(reach)) },
    headersTimeout: timeoutMs,
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ProxyAnswer>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'silent' }), timeoutMs);
  });
  const asked = client
    .connect({ path: hostPort, headers })
    .then(({ statusCode, headers: answer, socket }): ProxyAnswer => {
      socket.destroy();
      const reason = REASON_HEADERS.map((name) => answer[name]).find((value) => value !== undefined);
      return { kind: 'answered', status: statusCode, ...(reason ? { reason: String(reason) } : {}) };
    })
    .catch((error: { code?: string; cause?: { code?: string } }): ProxyAnswer => {
      const code = error.code ?? error.cause?.code ?? 'error';
      if (code === 'UND_ERR_HEADERS_TIMEOUT') return { kind: 'silent' };
      if (code.startsWith('ERR_SSL_')) return { kind: 'no-tls', code };
      return { kind: 'unreachable', code };
    });
  try {
    return await Promise.race([asked, deadline]);
  } finally {
    clearTimeout(timer);
    await client.destroy();
  }
}
