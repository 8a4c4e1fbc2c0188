/** `{web_base_url}` of `web_url` and `app_link` (D-WEB-BASE). */

export const DEFAULT_WEB_BASE_URL = 'https://dashboard.canvassing.example';

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
