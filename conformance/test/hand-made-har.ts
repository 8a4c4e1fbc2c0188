/**
 * Recordings made by hand for the tests that judge `--traffic`: a HAR file of exchanges given as
 * path, headers, status and body, every one under `BASE`, a few milliseconds apart from `T0`.
 */
export const BASE = 'http://api.test';
export const T0 = 1_760_000_000_000;

export interface Entry {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  status: number;
  body?: unknown;
  /** Milliseconds after the first entry. */
  at?: number;
  contentType?: string;
}

/** The HAR text of `entries`, as a browser or a proxy would record them. */
export function harOf(entries: Entry[]): string {
  return JSON.stringify({
    log: {
      version: '1.2',
      creator: { name: 'test', version: '1' },
      entries: entries.map((e) => ({
        startedDateTime: new Date(T0 + (e.at ?? 0)).toISOString(),
        time: 3,
        request: {
          method: e.method ?? 'GET',
          url: `${BASE}${e.path}`,
          httpVersion: 'HTTP/1.1',
          headers: Object.entries(e.headers ?? {}).map(([name, value]) => ({ name, value })),
          cookies: [],
          queryString: [],
          headersSize: -1,
          bodySize: 0,
        },
        response: {
          status: e.status,
          statusText: '',
          httpVersion: 'HTTP/1.1',
          headers: [{ name: 'Content-Type', value: e.contentType ?? 'application/json; charset=utf-8' }],
          cookies: [],
          content: {
            size: 0,
            mimeType: e.contentType ?? 'application/json',
            text: e.body === undefined ? '' : typeof e.body === 'string' ? e.body : JSON.stringify(e.body),
          },
          redirectURL: '',
          headersSize: -1,
          bodySize: -1,
        },
        cache: {},
        timings: { send: 0, wait: 3, receive: 0 },
      })),
    },
  });
}
