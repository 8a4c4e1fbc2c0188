/** `{web_base_url}` of `web_url` and `app_link` (D-WEB-BASE). */

export const DEFAULT_WEB_BASE_URL = 'https://dashboard.canvassing.example';

/** The most path segments a base may carry: the links' pattern in the spec admits no more (D-LINK-PATTERNS). */
export const WEB_BASE_MAX_PATH_SEGMENTS = 8;

/**
 * An absolute http(s) URL without query or fragment, with a host name (no IP literal) and at most
 * WEB_BASE_MAX_PATH_SEGMENTS path segments, so every link built on it matches the spec's pattern;
 * trailing slashes dropped.
 */
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
  const base = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  refuseUnlinkableBase(url, base, value);
  return base;
}

function refuseUnlinkableBase(url: URL, base: string, value: string): void {
  if (url.hostname.startsWith('[')) {
    throw new RangeError(`web base URL must name its host, not an IPv6 literal: ${value}`);
  }
  const segments = base.slice(url.origin.length).split('/').length - 1;
  if (segments > WEB_BASE_MAX_PATH_SEGMENTS) {
    throw new RangeError(
      `web base URL may carry at most ${WEB_BASE_MAX_PATH_SEGMENTS} path segments, not ${segments}: ${value}`,
    );
  }
}
