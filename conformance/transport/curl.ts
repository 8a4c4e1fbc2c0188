/**
 * A `curl` command that reproduces a request. Configured keys and gateway headers appear as shell
 * variables (`$CONFORMANCE_API_KEY`, `$CONFORMANCE_HEADER_X_GATEWAY_TOKEN`), never as values: the
 * command is safe to paste into a ticket. The way there goes with it (`curlReachArgs`): a proxy
 * given by flag (curl reads the proxy variables itself), the CA file, `-k`, the client certificate,
 * with credentials and passphrases as variables too.
 */
import { PROXY_VARIABLE, safeDecode } from './reach.ts';
import type { ProxySetting, Reach } from '../core/configuration.ts';
import type { RequestInfo } from '../core/exchange.ts';

export function curlOf(request: Omit<RequestInfo, 'curl'>, reachArgs: readonly string[] = []): string {
  const parts = ['curl', '-sS', '-i', ...reachArgs];
  if (request.method === 'HEAD') parts.push('--head');
  else if (request.method !== 'GET') parts.push('-X', request.method);
  // A key sent in the query shows as its variable, which the shell must expand.
  parts.push(SHELL_VALUE.test(request.url) ? doubleQuoted(request.url) : singleQuoted(request.url));
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
const recordedKeyVariable = (hex: string) => `CONFORMANCE_KEY_${hex.toUpperCase()}`;

/**
 * Header values the shell must expand: a key's variable, a gateway header's variables (any name:
 * `--header 'X-Gateway-Token: $GATEWAY_TOKEN'` shows as written), or the made-up key's generator.
 */
const SHELL_VALUE = /\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})|\$\(openssl rand -hex \d+\)/;

function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Double quotes so variables expand; anything else the shell would interpret is escaped. */
function doubleQuoted(text: string): string {
  return `"${text.replace(/["\\`]/g, '\\$&').replace(/\$(?![A-Za-z_]|\{[A-Za-z_][A-Za-z0-9_]*\}|\(openssl rand -hex \d+\))/g, '\\$')}"`;
}

/** A file as the run was given it: by its variable when it came from one, else its path. */
function fileArg(file: string, variable: string | undefined): string {
  return variable ? `"$${variable}"` : singleQuoted(file);
}

/**
 * The proxy as the run was given it: `$CONFORMANCE_PROXY` itself (curl reads credentials in the
 * URL), or the `--proxy` origin with its user; the password as `$CONFORMANCE_PROXY_PASSWORD` when
 * the run read it there, else left for curl to ask (`--proxy-user USER` prompts for it).
 */
function curlProxyArgs(proxy: ProxySetting): string[] {
  const url = new URL(proxy.url);
  if (proxy.from === PROXY_VARIABLE && !proxy.passwordVariable) return ['-x', `"$${PROXY_VARIABLE}"`];
  const args = ['-x', singleQuoted(url.origin)];
  if (!url.username) return args;
  const user = safeDecode(url.username);
  const credentials = proxy.passwordVariable
    ? doubleQuoted(`${user}:$${proxy.passwordVariable}`)
    : singleQuoted(user);
  return [...args, '--proxy-user', credentials];
}

/**
 * curl's flags for the run's way to the target. A proxy from HTTPS_PROXY or HTTP_PROXY is left to
 * curl, which reads the same variables; one from `--proxy` is named by its origin, its credentials
 * as variables.
 */
export function curlReachArgs(reach: Reach | undefined, proxy: ProxySetting | undefined): string[] {
  const args: string[] = [];
  if (proxy && (proxy.from === '--proxy' || proxy.from === PROXY_VARIABLE))
    args.push(...curlProxyArgs(proxy));
  if (reach?.ca) args.push('--cacert', fileArg(reach.ca.file, reach.ca.variable));
  if (reach?.insecure) args.push('-k');
  const cert = reach?.clientCert;
  if (cert) {
    args.push(
      '--cert',
      fileArg(cert.certFile, cert.certVariable),
      '--key',
      fileArg(cert.keyFile, cert.keyVariable),
    );
    if (cert.passphraseVariable) args.push('--pass', `"$${cert.passphraseVariable}"`);
  }
  return args;
}
