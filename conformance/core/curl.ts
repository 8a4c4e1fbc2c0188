/**
 * A `curl` command that reproduces a request. Configured keys and gateway headers appear as shell
 * variables (`$CONFORMANCE_API_KEY`, `$CONFORMANCE_HEADER_X_GATEWAY_TOKEN`), never as values: the
 * command is safe to paste into a ticket. The way there goes with it (`curlReachArgs`): a proxy
 * given by flag (curl reads the proxy variables itself), the CA file, `-k`, the client certificate,
 * with credentials and passphrases as variables too.
 */
import type { ProxySetting, Reach, RequestInfo } from './types.ts';

export function curlOf(request: Omit<RequestInfo, 'curl'>, reachArgs: readonly string[] = []): string {
  const parts = ['curl', '-sS', '-i', ...reachArgs];
  if (request.method === 'HEAD') parts.push('--head');
  else if (request.method !== 'GET') parts.push('-X', request.method);
  parts.push(singleQuoted(request.url));
  for (const [name, shown] of Object.entries(request.headers)) {
    const value = shown.replace(RECORDED_KEY_ID, (_, hex: string) => `$${recordedKeyVariable(hex)}`);
    const header = `${name}: ${value}`;
    parts.push('-H', SHELL_VALUE.test(value) ? doubleQuoted(header) : singleQuoted(header));
  }
  // curl then sends the request's own Accept-Encoding and prints the decoded body, not gzip bytes.
  if (Object.keys(request.headers).some((name) => name.toLowerCase() === 'accept-encoding'))
    parts.push('--compressed');
  if (request.body !== undefined) parts.push('--data-raw', singleQuoted(request.body));
  return parts.join(' ');
}

/** A recorded key no configured key matches, as reports show it (`key#3f9a1c0e`, `core/credentials.ts`). */
const RECORDED_KEY_ID = /\bkey#([0-9a-f]{8})\b/g;

/**
 * The variable a reproduction reads a recorded key from when it matches no configured key:
 * `CONFORMANCE_KEY_3F9A1C0E` for `key#3f9a1c0e`. Whoever holds that key sets it to reproduce.
 */
export const recordedKeyVariable = (hex: string) => `CONFORMANCE_KEY_${hex.toUpperCase()}`;

/** Header values the shell must expand: a key or gateway header variable, or the made-up key's generator. */
const SHELL_VALUE = /\$CONFORMANCE_[A-Z0-9_]+|\$\(openssl rand -hex \d+\)/;

function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Double quotes so `$CONFORMANCE_…` expands; anything else the shell would interpret is escaped. */
function doubleQuoted(text: string): string {
  return `"${text.replace(/["\\`]/g, '\\$&').replace(/\$(?!CONFORMANCE_[A-Z0-9_]+|\(openssl rand -hex \d+\))/g, '\\$')}"`;
}

/**
 * curl's flags for the run's way to the target. A proxy from HTTPS_PROXY or HTTP_PROXY is left to
 * curl, which reads the same variables; one from `--proxy` is named by its origin, its credentials
 * as variables.
 */
export function curlReachArgs(reach: Reach | undefined, proxy: ProxySetting | undefined): string[] {
  const args: string[] = [];
  if (proxy && (proxy.from === '--proxy' || proxy.from === 'CONFORMANCE_PROXY')) {
    const url = new URL(proxy.url);
    args.push('-x', singleQuoted(url.origin));
    if (url.password) {
      args.push('--proxy-user', '"$CONFORMANCE_PROXY_USER:$CONFORMANCE_PROXY_PASSWORD"');
    }
  }
  if (reach?.ca) args.push('--cacert', singleQuoted(reach.ca.file));
  if (reach?.insecure) args.push('-k');
  const cert = reach?.clientCert;
  if (cert) {
    args.push('--cert', singleQuoted(cert.certFile), '--key', singleQuoted(cert.keyFile));
    if (cert.passphraseVariable) args.push('--pass', `"$${cert.passphraseVariable}"`);
  }
  return args;
}
