/**
 * Recordings made by hand for the tests that judge `--traffic`: a HAR file of exchanges given as
 * path, headers, status and body, every one under `BASE`, a few milliseconds apart from `T0`.
 */
export const BASE = 'http://api.test';
const T0 = 1_760_000_000_000;

/** Ids of the recordings: an item of the primary campaign, one of the other, one of neither. */
export const OURS = '5b8d3c8e-1f7e-4d0f-9a35-2f6b1c1e0a01';
export const THEIRS = '7c2a9f10-64c5-4f3b-8d2e-0b9f4e6a1c02';
export const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** A walk's summary as a list gives it, its links on `web`. */
export const summary = (id: string, web = 'https://web.test') => ({
  id,
  name: 'Walk',
  lat: null,
  lng: null,
  count: 0,
  counts: {},
  web_url: `${web}/dashboard/c/walks/${id}`,
  app_link: `${web}/open/c/walks/${id}`,
});
/** A list answer of these walks' summaries. */
export const list = (...ids: string[]) => ({
  ok: true,
  data: ids.map((id) => summary(id)),
  meta: { count: ids.length },
});
/** A walk's detail answer, with no stops. */
export const walk = (id: string) => ({ ok: true, data: { id, name: 'Walk', stops: [] } });
/** A key header naming the configured key by its variable, as our own `--har` writes it. */
export const bearer = (name: string) => ({ Authorization: `Bearer $${name}` });
export const apiKey = (name: string) => ({ 'x-api-key': `$${name}` });

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
