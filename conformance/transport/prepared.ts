/**
 * A request prepared twice: as reports show it (`RequestInfo`: its URL and headers with every key
 * by its variable, and the curl line that reproduces it) and as it goes on the wire
 * (`AttemptRequest`: the keys' values, a key placed in the query, a path sent as written).
 */
import type { RequestInfo, RequestSpec } from '../core/exchange.ts';
import type { SuiteConfig } from '../core/configuration.ts';
import { type AsWritten, asWrittenCurlArgs, asWrittenOf } from './as-written.ts';
import type { AttemptRequest } from './attempt.ts';
import { curlOf } from './curl.ts';
import { headersOf, withQuery } from './request-headers.ts';

/** What every request of a run shares: the base URL, the keys, curl's flags for the way there. */
export interface Preparing {
  config: Pick<SuiteConfig, 'baseUrl' | 'keys' | 'reach'>;
  base: AsWritten;
  madeUpKey: string;
  curlArgs: readonly string[];
}

export function preparedOf(
  spec: RequestSpec,
  method: string,
  run: Preparing,
): { info: RequestInfo; attempt: AttemptRequest } {
  const { wire, display, keys, nearMisses, inQuery } = headersOf(spec, run.config, run.madeUpKey);
  const url = urlOf(run.config.baseUrl, withQuery(spec, inQuery, 'shown'));
  const asWritten = asWrittenOf(run.base, withQuery(spec, inQuery, 'value'));
  const info: RequestInfo = { method, url, keys, headers: display, curl: '' };
  if (nearMisses) info.nearMisses = nearMisses;
  if (spec.body !== undefined) info.body = spec.body;
  // curl removes dot segments too, unless told not to, and never sends a fragment unless given the target.
  info.curl = curlOf(info, asWritten ? [...run.curlArgs, ...asWrittenCurlArgs(asWritten)] : run.curlArgs);
  const attempt: AttemptRequest = {
    method,
    target: asWritten ?? (inQuery ? urlOf(run.config.baseUrl, withQuery(spec, inQuery, 'value')) : url),
    headers: wire,
    body: spec.body,
    offSocket: spec.offSocket === true,
  };
  return { info, attempt };
}

/** The URL of a path and query below the base URL, as given. */
export function urlOf(baseUrl: string, spec: Pick<RequestSpec, 'path' | 'query'>): string {
  return `${baseUrl}${spec.path}${spec.query !== undefined ? `?${spec.query}` : ''}`;
}
