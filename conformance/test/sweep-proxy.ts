/**
 * Deployments of our own making for the sweep proof: the reference server on the demo data set, with
 * a node:http proxy in front that can rewrite what goes up (the key, the query), what comes back
 * (status, headers, body, a cut connection) and how it is written (chunked, closed). Each variant
 * is a small function of the request and the answer, so a fault sits exactly where a staging server
 * would have it: in one record, past the hundredth, on one endpoint, at some limits only.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import type { RunningServer, StartOptions } from '../../reference-server/start.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import type { KeyName } from '../core/configuration.ts';
import { CREDENTIAL_KEY_NAMES } from '../../spec/facts.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';

/** A request as the proxy saw it (below the gateway prefix), numbered from 1 in arrival order. */
interface Asked {
  method: string;
  path: string;
  rawQuery: string;
  query: URLSearchParams;
  /** The demo key it carries, `unknown` for any other value, undefined for none. */
  key: KeyName | 'unknown' | undefined;
  /** Whether the key came in x-api-key alone (no Authorization header). */
  viaXApiKey: boolean;
  seq: number;
}

export interface ProxyAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface Variant {
  /** Serve under this path prefix (a gateway), e.g. `/gateway/canvass`. */
  prefix?: string;
  /** Change the request before it goes up: another key (null: none) or another query. */
  forward?(asked: Asked): { key?: KeyName | null; rawQuery?: string } | undefined;
  /** Change the answer; `reset` cuts the connection instead of answering. */
  answer?(answer: ProxyAnswer, asked: Asked): ProxyAnswer | 'reset' | undefined;
  /** Write the answer (default: in one piece with its Content-Length). */
  write?(res: ServerResponse, answer: ProxyAnswer): void;
  /**
   * With other upstreams (`startSweepTarget`'s `others`): which one this request goes to, 0 for the
   * first (e.g. the same data set listed in other orders).
   */
  upstream?(asked: Asked, upstreams: number): number;
}

export interface SweepTarget {
  baseUrl: string;
  credentials: RunningServer['credentials'];
  close(): Promise<void>;
}

const isList = (a: Asked) => a.path === '/api/v1/walks';
const isDetail = (a: Asked) => /^\/api\/v1\/walks\/[^/]+$/.test(a.path);
export const asked = { isList, isDetail };

/** Starts the reference server (with `options`) and the variant's proxy in front of it. */
export async function startSweepTarget(
  variant: Variant,
  options: StartOptions = {},
  ...others: StartOptions[]
): Promise<SweepTarget> {
  const upstreams: RunningServer[] = [];
  for (const other of [{}, ...others]) {
    upstreams.push(
      await startReferenceServer({ host: '127.0.0.1', port: 0, log: false, ...options, ...other }),
    );
  }
  let seq = 0;
  const proxy: Listening = await listen((req, res) => {
    seq++;
    void serve(req, res, variant, upstreams, seq).catch(() => res.destroy());
  });
  return {
    baseUrl: `${proxy.baseUrl}${variant.prefix ?? ''}`,
    credentials: (upstreams[0] as RunningServer).credentials,
    close: async () => {
      await proxy.close();
      for (const upstream of upstreams) await upstream.close();
    },
  };
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  variant: Variant,
  upstreams: readonly RunningServer[],
  seq: number,
): Promise<void> {
  const first = upstreams[0] as RunningServer;
  const url = new URL(req.url ?? '/', 'http://proxy.invalid');
  const prefix = variant.prefix ?? '';
  if (!url.pathname.startsWith(`${prefix}/`)) {
    writeWhole(res, jsonAnswer(404, { ok: false, error: { code: 'not_found', message: 'No such route.' } }));
    return;
  }
  const seen: Asked = {
    method: req.method ?? 'GET',
    path: url.pathname.slice(prefix.length),
    rawQuery: url.search.replace(/^\?/, ''),
    query: url.searchParams,
    key: keyOf(req, first.credentials),
    viaXApiKey: req.headers['x-api-key'] !== undefined && req.headers.authorization === undefined,
    seq,
  };
  const upstream = upstreams[variant.upstream?.(seen, upstreams.length) ?? 0] ?? first;
  const change = variant.forward?.(seen) ?? {};
  const headers: OutgoingHttpHeaders = { ...req.headers, 'accept-encoding': 'identity' };
  delete headers.host;
  if (change.key !== undefined) {
    delete headers['x-api-key'];
    delete headers.authorization;
    if (change.key !== null) headers.authorization = `Bearer ${upstream.credentials[change.key]}`;
  }
  const rawQuery = change.rawQuery ?? seen.rawQuery;
  const path = `${seen.path}${rawQuery ? `?${rawQuery}` : ''}`;
  const body = await collect(req);
  const answer = await forward(upstream.baseUrl, seen.method, path, headers, body);
  const changed = variant.answer?.(answer, seen) ?? answer;
  if (changed === 'reset') {
    res.socket?.resetAndDestroy();
    return;
  }
  (variant.write ?? writeWhole)(res, changed);
}

function keyOf(req: IncomingMessage, credentials: RunningServer['credentials']): Asked['key'] {
  const bearer = /^bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
  const header = req.headers['x-api-key'];
  const token = bearer ?? (typeof header === 'string' ? header : undefined);
  if (token === undefined && req.headers.authorization === undefined) return undefined;
  return CREDENTIAL_KEY_NAMES.find((name) => credentials[name] === token) ?? 'unknown';
}

async function collect(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function forward(
  base: string,
  method: string,
  path: string,
  headers: OutgoingHttpHeaders,
  body: Buffer,
): Promise<ProxyAnswer> {
  return new Promise((resolve, reject) => {
    const up = httpRequest(`${base}${path}`, { method, headers }, (answer) => {
      void collect(answer).then((content) => {
        const kept: Record<string, string> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value === undefined || HOP_BY_HOP.has(name)) continue;
          kept[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        resolve({ status: answer.statusCode ?? 502, headers: kept, body: content });
      }, reject);
    });
    up.on('error', reject);
    up.end(body.length > 0 ? body : undefined);
  });
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

function writeWhole(res: ServerResponse, answer: ProxyAnswer): void {
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
  res.end(answer.body);
}

export function jsonAnswer(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): ProxyAnswer {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: Buffer.from(JSON.stringify(value)),
  };
}

type Body = { ok?: boolean; data?: unknown; meta?: { count?: number } };

/** Rewrites a JSON answer's body; other answers pass unchanged. */
export function editJson(answer: ProxyAnswer, edit: (body: Body) => void): ProxyAnswer {
  let body: Body;
  try {
    body = JSON.parse(answer.body.toString('utf8')) as Body;
  } catch {
    return answer;
  }
  edit(body);
  return { ...answer, body: Buffer.from(JSON.stringify(body)) };
}

export type Json = Record<string, unknown>;
export const walksIn = (body: Body): Json[] => (Array.isArray(body.data) ? (body.data as Json[]) : []);
export const stopsIn = (body: Body): Json[] => {
  const data = body.data as { stops?: Json[] } | undefined;
  return Array.isArray(data?.stops) ? data.stops : [];
};
