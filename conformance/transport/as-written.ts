/**
 * Where a path that URL parsing would change goes, as written: parsing the URL (WHATWG, as undici's
 * `request(url)` does) removes dot segments (`.`, `..`, `%2e` spellings too), turns a backslash into
 * a slash and cuts a `#` off before the wire, and a router that reads such a path otherwise than the
 * gateway in front of it is what the other spellings of a path probe (AUTH-015). Any other path goes
 * by its URL.
 */
import { hasDotSegment } from '../core/dot-segments.ts';
import type { RequestSpec } from '../core/exchange.ts';

/** An origin and a path to send exactly as written. */
export interface AsWritten {
  origin: string;
  path: string;
}

/** Where an attempt goes: its URL, or an origin and a path sent as written. */
export type Target = string | AsWritten;

/** The base URL's origin and its path (no trailing slash), which every path is sent below. */
export function baseOf(baseUrl: string): AsWritten {
  const base = new URL(baseUrl);
  return { origin: base.origin, path: base.pathname.replace(/\/+$/, '') };
}

/** The path below `base` as written, or undefined when parsing would send it as written anyway. */
export function asWrittenOf(
  base: AsWritten,
  spec: Pick<RequestSpec, 'path' | 'query'>,
): AsWritten | undefined {
  const query = spec.query !== undefined ? `?${spec.query}` : '';
  const path = `${base.path}${spec.path}${query}`;
  if (!hasDotSegment(spec.path) && !changedByParsing(base.origin, path)) return undefined;
  return { origin: base.origin, path };
}

/** Whether WHATWG URL parsing would send this path and query otherwise than written. */
function changedByParsing(origin: string, path: string): boolean {
  try {
    const parsed = new URL(path, origin);
    return `${parsed.pathname}${parsed.search}` !== path;
  } catch {
    return true;
  }
}

/** How a request to ask again is named in a message: its method and URL, never a header. */
export function lineOf(method: string, target: Target): string {
  return `${method} ${typeof target === 'string' ? target : `${target.origin}${target.path}`}`;
}

/** curl's flags for a path sent as written: dot segments kept, and a `#` sent as the target's. */
export function asWrittenCurlArgs(asWritten: AsWritten): string[] {
  if (!asWritten.path.includes('#')) return ['--path-as-is'];
  return ['--path-as-is', '--request-target', `'${asWritten.path.replaceAll("'", `'\\''`)}'`];
}
