/**
 * Turns an exchange into what the rules judge, the same way for both sources: the operation from
 * the method and path below the base URL, the credentials from the request's headers, the answer's
 * kind from the answer.
 */
import type { Exchange } from './exchange.ts';
import type { Keyring } from './credentials.ts';
import type { Observation } from './observation.ts';
import { answerKindOf } from './observation.ts';
import type { SpecModel } from './spec-model.ts';
import { parsedUrl } from './parsed-urls.ts';

export interface ObserveOptions {
  spec: SpecModel;
  keyring: Keyring;
  /** The base URL's path (a gateway's prefix), removed before matching: `/staging`. */
  basePath: string;
  source: 'live' | 'traffic';
  /** Whether the source shows key headers at all (a sanitized recording does not). */
  keysVisible?: boolean;
}

export interface ProbeTags {
  plannedBy?: ReadonlySet<string>;
  private?: boolean;
  transform?: string;
}

/** The path below the base: `/api/v1/walks` of `https://host/staging/api/v1/walks?limit=1`. */
function pathBelow(url: URL, basePath: string): string {
  const path = url.pathname;
  return basePath && path.startsWith(basePath) ? path.slice(basePath.length) || '/' : path;
}

export function observe(
  exchange: Exchange,
  options: ObserveOptions,
  tags: ProbeTags = {},
  // An answer whose body was not kept (a recording's, or one read off the socket) shows no body to judge.
  bodyless = exchange.response?.unrecorded === true,
): Observation {
  const url = parsedUrl(exchange.request.url);
  const path = pathBelow(url, options.basePath);
  const matched = hasDotSegment(exchange.request.url)
    ? undefined
    : options.spec.match(exchange.request.method, path);
  const { answer, failure } = answerKindOf(exchange, bodyless);
  const obs: Observation = {
    exchange,
    ...(matched ? { op: matched.op } : {}),
    params: matched?.params ?? {},
    query: url.searchParams,
    path,
    target: targetBelow(exchange.request.url, options.basePath),
    credential: options.keyring.credentialOf(exchange.request.headers, options.keysVisible ?? true),
    answer,
    ...(failure ? { failure } : {}),
    bodyless,
    inApi:
      options.spec.apiPrefix === '' ||
      path === options.spec.apiPrefix ||
      path.startsWith(`${options.spec.apiPrefix}/`),
    ...(tags.plannedBy ? { plannedBy: tags.plannedBy } : {}),
    ...(tags.private ? { private: true } : {}),
    ...(tags.transform ? { transform: tags.transform } : {}),
    source: options.source,
  };
  return obs;
}

/** The request target of a URL as written, below the base URL's path: nothing parsed away. */
function targetBelow(url: string, basePath: string): string {
  const target = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
  return basePath && target.startsWith(basePath) ? target.slice(basePath.length) || '/' : target;
}

/** A `.` or `..` segment (or a `%2e` spelling of one): no documented path has one. */
function hasDotSegment(url: string): boolean {
  // A dot segment starts right after a slash: most URLs have no such dot at all.
  if (!/\/(?:\.|%2e)/i.test(url)) return false;
  const path = url.replace(/^[a-z]+:\/\/[^/]+/i, '').split(/[?#]/)[0] ?? '';
  return path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
}
