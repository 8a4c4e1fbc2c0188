/**
 * A deployment that drifted from the spec in several places at once, for the drift, HAR and HTML
 * report tests: a proxy in front of the reference server that adds an undocumented field to every
 * listed walk and to the list's `meta`, and answers a malformed walk id with a 422
 * `application/problem+json` error envelope carrying an extra field (an undocumented status, content
 * type and field). Optionally it also
 * breaks a required rule (`limit=1` gives two walks) and echoes the key it got in a header and in
 * error messages, and the base URL can carry any prefix (`/t/<anything>`), which the proxy drops.
 */
import type { IncomingMessage } from 'node:http';
import { request } from 'undici';
import type { RunningServer } from '../../reference-server/start.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';

interface DriftOptions {
  /** `limit=1` answers two walks (fails COLLECTION-003, a required check). */
  breakLimit?: boolean;
  /** The key the request carried comes back in an `x-echo-key` header and in error messages. */
  echoKeys?: boolean;
  /** Listed walks also carry a field whose name is HTML markup (reports must show it as text). */
  markup?: boolean;
}

/** The field name `markup` adds: a report that does not escape it would load an image. */
export const MARKUP_FIELD = '<img src="https://tracker.invalid/x.png" onerror="alert(1)">';

export interface DriftServer {
  credentials: RunningServer['credentials'];
  /** The reference server behind the proxy, undrifted. */
  referenceUrl: string;
  /** The base URL of one behaviour; `prefix` becomes a path segment the proxy drops. */
  urlOf(options: DriftOptions, prefix?: string): string;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * Hop-by-hop and length headers are the proxy's own business; it rewrites bodies, so it asks the
 * reference server for identity ones (no `Accept-Encoding`) and answers uncompressed.
 */
const NOT_FORWARDED = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'accept-encoding',
]);

export async function startDriftServer(): Promise<DriftServer> {
  const reference = await startReferenceServer({ host: '127.0.0.1', port: 0, log: false });
  const proxy: Listening = await listen((req, res) => {
    void answer(req, reference.baseUrl).then(
      ({ status, headers, body }) => {
        res.writeHead(status, headers);
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end('{"ok":false,"error":{"code":"bad_gateway","message":"proxy failure"}}');
      },
    );
  });
  return {
    credentials: reference.credentials,
    referenceUrl: reference.baseUrl,
    urlOf: (options, prefix = 'base') =>
      `${proxy.baseUrl}/${options.breakLimit ? 'b' : 'k'}${options.echoKeys ? 'e' : 'q'}${options.markup ? 'm' : 'p'}/${encodeURIComponent(prefix)}`,
    close: async () => {
      await proxy.close();
      await reference.close();
    },
  };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

async function answer(req: IncomingMessage, upstream: string): Promise<Answer> {
  const match = /^\/([bk])([eq])([mp])\/[^/?]*(.*)$/.exec(req.url ?? '');
  const breakLimit = match?.[1] === 'b';
  const echoKeys = match?.[2] === 'e';
  const markup = match?.[3] === 'm';
  const rest = match?.[4] || '/';
  const url = new URL(rest.startsWith('/') ? rest : `/${rest}`, 'http://drift.invalid');
  const key =
    /^bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1] ?? req.headers['x-api-key'];

  const id = /^\/api\/v1\/walks\/([^/]+)$/.exec(url.pathname)?.[1];
  let result: Answer;
  if (req.method === 'GET' && id !== undefined && !UUID.test(decodeURIComponent(id))) {
    const problem = {
      ok: false,
      error: { code: 'invalid_id', message: 'The id is not a UUID.', field: 'id' },
    };
    result = {
      status: 422,
      headers: { 'content-type': 'application/problem+json' },
      body: Buffer.from(JSON.stringify(problem)),
    };
  } else {
    result = await forward(req, `${upstream}${url.pathname}${url.search}`);
    if (req.method === 'GET' && url.pathname === '/api/v1/walks' && result.status === 200) {
      const list = JSON.parse(result.body.toString('utf8')) as {
        data: Record<string, unknown>[];
        meta: Record<string, unknown>;
      };
      for (const walk of list.data) {
        walk.region = 'north';
        if (markup) walk[MARKUP_FIELD] = 1;
      }
      list.meta.next_cursor = null;
      if (breakLimit && url.searchParams.get('limit') === '1' && list.data[0]) list.data.push(list.data[0]);
      if (breakLimit && url.searchParams.get('limit') === '1') list.meta.count = list.data.length;
      result.body = Buffer.from(JSON.stringify(list));
    }
  }
  if (echoKeys && typeof key === 'string') {
    result.headers['x-echo-key'] = encodeURIComponent(key);
    if (result.status === 401) {
      result.body = Buffer.from(
        JSON.stringify({
          ok: false,
          error: { code: 'unauthorized', message: `The key ${key} is not valid.` },
        }),
      );
    }
  }
  delete result.headers.etag; // the body changed: an upstream ETag would no longer match it
  result.headers['content-length'] = String(result.body.length);
  return result;
}

async function forward(req: IncomingMessage, url: string): Promise<Answer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !NOT_FORWARDED.has(name))
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const upstream = await request(url, {
    method: (req.method ?? 'GET') as 'GET',
    headers,
    body: chunks.length > 0 ? Buffer.concat(chunks) : null,
  });
  const body = Buffer.from(await upstream.body.arrayBuffer());
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value !== undefined && !NOT_FORWARDED.has(name))
      out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { status: upstream.statusCode, headers: out, body };
}
