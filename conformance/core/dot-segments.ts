/**
 * Dot segments (`.`, `..`, either dot possibly `%2e`): URL parsing removes them, so the client sends
 * a path that has one as written, and no documented operation has one (AUTH-015, `--traffic`).
 */
/** A dot segment as URL parsing (WHATWG) sees one: `.` or `..`, each dot possibly `%2e`. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
const MAYBE_DOT = /\/(?:\.|%2e)/i;

/** Whether a path (or a URL's path, before its query) has a dot segment: what `new URL` would remove. */
export function hasDotSegment(pathOrUrl: string): boolean {
  // A dot segment starts right after a slash: most paths have no such dot at all.
  if (!MAYBE_DOT.test(pathOrUrl)) return false;
  const [path = ''] = pathOrUrl.split(/[?#]/);
  return path.split('/').some((segment) => DOT_SEGMENT.test(segment));
}
