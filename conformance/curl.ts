/**
 * A `curl` command that reproduces a request. Configured keys and gateway headers appear as shell
 * variables (`$CONFORMANCE_API_KEY`, `$CONFORMANCE_HEADER_X_GATEWAY_TOKEN`), never as values: the
 * command is safe to paste into a ticket. The way there (proxy, CA, client certificate) is the
 * tester's own setup and is not repeated in each command.
 */
import type { RequestInfo } from './types.ts';

export function curlOf(request: Omit<RequestInfo, 'curl'>): string {
  const parts = ['curl', '-sS', '-i'];
  if (request.method === 'HEAD') parts.push('--head');
  else if (request.method !== 'GET') parts.push('-X', request.method);
  parts.push(singleQuoted(request.url));
  for (const [name, value] of Object.entries(request.headers)) {
    const header = `${name}: ${value}`;
    parts.push('-H', SHELL_VALUE.test(value) ? doubleQuoted(header) : singleQuoted(header));
  }
  // curl then sends the request's own Accept-Encoding and prints the decoded body, not gzip bytes.
  if (Object.keys(request.headers).some((name) => name.toLowerCase() === 'accept-encoding'))
    parts.push('--compressed');
  if (request.body !== undefined) parts.push('--data-raw', singleQuoted(request.body));
  return parts.join(' ');
}

/** Header values the shell must expand: a key or gateway header variable, or the made-up key's generator. */
const SHELL_VALUE = /\$CONFORMANCE_[A-Z0-9_]+|\$\(openssl rand -hex \d+\)/;

function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Double quotes so `$CONFORMANCE_…` expands; anything else the shell would interpret is escaped. */
function doubleQuoted(text: string): string {
  return `"${text.replace(/["\\`]/g, '\\$&').replace(/\$(?!CONFORMANCE_[A-Z0-9_]+|\(openssl rand -hex \d+\))/g, '\\$')}"`;
}
