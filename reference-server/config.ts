/** Configuration of the reference app, checked once when the app is built. */
import { fileURLToPath } from 'node:url';
import { LIVE_SPEC_PATH } from '../spec/contract.ts';
import type { RateLimitConfig } from './auth/rate-limit.ts';
import { jsonLines, type LogSink } from './log.ts';

/** D-WEB-BASE */
export const DEFAULT_WEB_BASE_URL = 'https://dashboard.canvassing.example';
export const DEFAULT_DOCS_PATH = fileURLToPath(
  new URL('../spec/generated/api-reference.html', import.meta.url),
);

export interface ServerConfig {
  /** `{web_base_url}` of `web_url` and `app_link`; no trailing slash, query or fragment. */
  webBaseUrl: string;
  /** Where structured log records go; `false` for silence. Default: JSON lines on stdout. */
  log: LogSink | false;
  /** Per-key rate limit (D-RATE); off by default. */
  rateLimit: RateLimitConfig | false;
  /** The spec served at `/openapi.yaml`. */
  specPath: string;
  /** The page served at `/docs`. */
  docsPath: string;
}

export function resolveConfig(config: Partial<ServerConfig> = {}): ServerConfig {
  const rateLimit = config.rateLimit ?? false;
  if (rateLimit && !(Number.isInteger(rateLimit.requestsPerMinute) && rateLimit.requestsPerMinute > 0)) {
    throw new RangeError('rateLimit.requestsPerMinute must be a positive integer');
  }
  return {
    webBaseUrl: normalizeWebBaseUrl(config.webBaseUrl ?? DEFAULT_WEB_BASE_URL),
    log: config.log === undefined ? jsonLines() : config.log,
    rateLimit,
    specPath: config.specPath ?? LIVE_SPEC_PATH,
    docsPath: config.docsPath ?? DEFAULT_DOCS_PATH,
  };
}

/** An absolute http(s) URL without query or fragment; trailing slashes dropped. */
export function normalizeWebBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RangeError(`web base URL is not a URL: ${value}`);
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search ||
    url.hash ||
    value.includes('#')
  ) {
    throw new RangeError(`web base URL must be http(s) without query or fragment: ${value}`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}
