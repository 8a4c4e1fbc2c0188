/**
 * URLs parsed lately, by their text: a recording asks the same few URLs again and again, and its
 * reader (which tells the API's entries by their URL) and the observation of each exchange read the
 * same one. A URL given out here is shared: it is read, never changed.
 */

const parsed = new Map<string, URL>();
const KEPT = 256;

/** The URL of a text, parsed or remembered; throws as `new URL` throws. */
export function parsedUrl(text: string): URL {
  let url = parsed.get(text);
  if (!url) {
    url = new URL(text);
    if (parsed.size >= KEPT) parsed.delete(parsed.keys().next().value as string);
    parsed.set(text, url);
  }
  return url;
}
