/**
 * The headers a request carries, twice: as sent (the keys' values) and as reports show them (each
 * key by its variable, a near miss by its label, the made-up key as a shell expression that makes
 * another one), with the gateway's headers under a check's own. A key placed in the query goes as
 * a parameter after the request's own (`withQuery`). Requests ask for `Accept-Encoding: identity`
 * unless a check asks for a coding: a deployment may compress a request that names none (RFC 9110
 * §12.5.3), and the suite must not fail it for that.
 */
import { KEY_PREFIX } from '../../spec/facts.ts';
import { nearMissLabel, nearMissOf } from '../core/near-miss.ts';
import { USER_AGENT } from '../core/tool.ts';
import type { KeyName, SuiteConfig } from '../core/configuration.ts';
import type { KeyPlacement, KeyUse, RequestInfo, RequestSpec } from '../core/exchange.ts';
import { NO_CODING } from './decoding.ts';

/** How reports show the made-up key: any such key reproduces the request. */
const MADE_UP_KEY_SHELL = `${KEY_PREFIX}$(openssl rand -hex 24)`;

/** A key sent as a query parameter (`KeyUse.placed`). */
interface QueryKey {
  name: string;
  value: string;
  shown: string;
}

interface RequestHeaders {
  wire: Record<string, string>;
  display: Record<string, string>;
  keys: KeyName[];
  nearMisses?: RequestInfo['nearMisses'];
  /** A key placed in the query: the parameter, its value on the wire and as reports show it. */
  inQuery?: QueryKey;
}

/** The headers of `spec` with the run's keys and gateway headers; `madeUpKey` is the run's made-up key. */
export function headersOf(
  spec: RequestSpec,
  config: Pick<SuiteConfig, 'keys' | 'reach'>,
  madeUpKey: string,
): RequestHeaders {
  const wire: Record<string, string> = {
    'user-agent': USER_AGENT,
    accept: 'application/json',
    'accept-encoding': NO_CODING,
  };
  const display: Record<string, string> = {};
  const keys: KeyName[] = [];
  let nearMisses: RequestInfo['nearMisses'];
  let inQuery: QueryKey | undefined;
  for (const use of spec.auth === undefined ? [] : [spec.auth].flat()) {
    const { value, shown } = keyOf(use, config.keys);
    if (use.nearMiss) (nearMisses ??= []).push({ key: use.key, nearMiss: use.nearMiss });
    else keys.push(use.key);
    if (use.placed?.in === 'query') {
      inQuery = { name: use.placed.name, value, shown };
      continue;
    }
    if (use.placed) {
      placeOutOfHeaders(use.placed, value, shown, wire, display);
      continue;
    }
    const scheme = use.scheme ?? (use.via === 'bearer' ? 'Bearer' : '');
    const before = scheme === '' ? '' : `${scheme} `;
    if (use.via === 'bearer') {
      wire.authorization = `${before}${value}`;
      display.Authorization = `${before}${shown}`;
    } else {
      wire['x-api-key'] = `${before}${value}`;
      display['x-api-key'] = `${before}${shown}`;
    }
  }
  if (spec.madeUpKey === 'bearer') {
    wire.authorization = `Bearer ${madeUpKey}`;
    display.Authorization = `Bearer ${MADE_UP_KEY_SHELL}`;
  } else if (spec.madeUpKey === 'x-api-key') {
    wire['x-api-key'] = madeUpKey;
    display['x-api-key'] = MADE_UP_KEY_SHELL;
  }
  // The gateway's headers go on every request, under a check's own; reports show their variable.
  for (const header of config.reach?.headers ?? []) {
    wire[header.name.toLowerCase()] = header.value;
    display[header.name] = header.shown;
  }
  for (const [name, value] of Object.entries(spec.headers ?? {})) {
    wire[name.toLowerCase()] = value;
    display[name] = value;
  }
  if (spec.body !== undefined && !('content-type' in wire)) {
    wire['content-type'] = 'application/json';
    display['Content-Type'] = 'application/json';
  }
  return { wire, display, keys, ...(nearMisses ? { nearMisses } : {}), ...(inQuery ? { inQuery } : {}) };
}

/** A configured key's value (or its near miss, derived now) and how reports show it. */
function keyOf(use: KeyUse, configured: SuiteConfig['keys']): { value: string; shown: string } {
  const key = configured[use.key];
  if (key === undefined) throw new Error(`${use.key} is not configured`);
  if (use.dropPrefix !== undefined && key.startsWith(use.dropPrefix)) {
    return { value: key.slice(use.dropPrefix.length), shown: `<$${use.key} without ${use.dropPrefix}>` };
  }
  if (!use.nearMiss) return { value: key, shown: `$${use.key}` };
  const value = nearMissOf(key, use.nearMiss);
  if (value === undefined) throw new Error(`${use.key} has no near miss "${use.nearMiss}"`);
  return { value, shown: `<${nearMissLabel(use.key, use.nearMiss)}>` };
}

/** A key sent in a cookie, or as the user of Basic authentication (`KeyUse.placed`). */
function placeOutOfHeaders(
  placed: KeyPlacement,
  value: string,
  shown: string,
  wire: Record<string, string>,
  display: Record<string, string>,
): void {
  if (placed.in === 'cookie') {
    wire.cookie = `${placed.name}=${value}`;
    display.Cookie = `${placed.name}=${shown}`;
  } else if (placed.in === 'basic') {
    wire.authorization = `Basic ${Buffer.from(`${value}:`).toString('base64')}`;
    display.Authorization = `Basic <base64 of ${shown}:>`;
  }
}

/** The request with the key's parameter after its query: its value for the wire, its variable for reports. */
export function withQuery<S extends Pick<RequestSpec, 'path' | 'query'>>(
  spec: S,
  key: QueryKey | undefined,
  as: 'value' | 'shown',
): S {
  if (!key) return spec;
  const pair = `${encodeURIComponent(key.name)}=${as === 'value' ? encodeURIComponent(key.value) : key.shown}`;
  return { ...spec, query: spec.query ? `${spec.query}&${pair}` : pair };
}

/**
 * What identifies each credential a request sends to the target: its keys, and their near misses.
 * A near miss counts against its key as well: a gateway's limit may well read it as the key. A key
 * out of its place (a cookie, the query) counts as no key too: a limit that does not read it there
 * counts the request with those that carry none.
 */
export function credentialsOf(spec: RequestSpec): string[] {
  const uses = spec.auth === undefined ? [] : [spec.auth].flat();
  const keys = uses.flatMap((use) => [
    use.key,
    ...(use.nearMiss ? [`${use.key}~${use.nearMiss}`] : []),
    ...(use.placed ? [''] : []),
  ]);
  if (spec.madeUpKey) keys.push('made-up');
  return [...new Set(keys)];
}
