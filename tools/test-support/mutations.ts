/**
 * Deliberately broken variants of the reference server, one rule broken each. A proxy in front of
 * the real reference server (`startReferenceServer`) rewrites the request before passing it on, or
 * the answer it got back, through public API only. One proxy serves every variant under
 * `/v/<name>`, so each variant is a base URL: `http://127.0.0.1:<port>/v/<name>`.
 */
import { randomUUID } from 'node:crypto';
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request,
  type ServerResponse,
} from 'node:http';
import { stopStatusesOf, loadSpec } from '../../spec/contract.ts';
import type { Dataset, DemoCredentials, Walk } from '../../fixtures/index.ts';
import { generateDataset } from '../../fixtures/index.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import type { KeyName } from '../../conformance/core/configuration.ts';
import { CREDENTIAL_KEY_NAMES, LIMIT } from '../../spec/facts.ts';
import { badLimitsOf } from '../../conformance/rules/limits.ts';
import { hasDotSegment } from '../../conformance/core/dot-segments.ts';
import { type Listening, listen } from './listen.ts';

interface World {
  credentials: DemoCredentials & { CONFORMANCE_WEB_BASE_URL: string };
  primaryIds: Set<string>;
  otherIds: Set<string>;
  /** A summary of an archived walk of the primary campaign, shaped as the list would show it. */
  archivedSummary: Record<string, unknown>;
  /** The slugs of the primary and the second campaign. */
  slugs: { primary: string; other: string };
}

interface RequestView {
  method: string;
  path: string;
  query: URLSearchParams;
  rawQuery: string;
  /** The demo key the request carries, `unknown` for any other value, undefined for none. */
  key: KeyName | 'unknown' | undefined;
  via: 'bearer' | 'x-api-key' | undefined;
  accept: string;
}

/** The request the proxy passes on, which a mutation may rewrite. */
interface Forwarded {
  method: string;
  /** Path and query. */
  url: string;
  /** Name/value lines, as `IncomingMessage.rawHeaders` has them (duplicates kept). */
  headers: string[];
}

interface Answer {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
  /** Cut: the whole body's Content-Length declared, half the body sent, and the connection closed. */
  cut?: true;
  /**
   * Written on the socket after the headers of an answer that has no content (HEAD, 304), as a
   * broken server or gateway does; Node's own response never writes a body there.
   */
  afterHeaders?: Buffer;
}

export interface Mutation {
  /** Short name, used in the URL and the coverage table. */
  name: string;
  /** The check meant to catch it. */
  breaks: string;
  /** The broken rule, in words. */
  description: string;
  /** Drift: caught only under --strict (and the run passes without it). */
  strictOnly?: true;
  /** No other required check fails: the named check alone catches it (the proof a new check is needed). */
  alone?: true;
  request?: (req: Forwarded, view: RequestView, world: World) => void;
  response?: (answer: Answer, view: RequestView, world: World, request: Forwarded) => Answer | undefined;
  /**
   * A response that keeps state (a cache), made anew for each server: test files share one module
   * (vitest runs them unisolated), and one file's run must not meet another's cached answers.
   */
  fresh?: () => NonNullable<Mutation['response']>;
}

/** Applies `fault` to one answer in twenty it could apply to, from the seventh on (a counter per variant). */
function oneInTwenty(fault: NonNullable<Mutation['response']>): NonNullable<Mutation['response']> {
  let seen = 0;
  return (answer, view, world, request) => {
    const faulty = fault(answer, view, world, request);
    if (faulty === undefined) return undefined;
    seen++;
    return seen % 20 === 7 ? faulty : undefined;
  };
}

const isList = (v: RequestView) => v.path === '/api/v1/walks';
const isDetail = (v: RequestView) => /^\/api\/v1\/walks\/[^/]+$/.test(v.path);
const detailId = (v: RequestView) => decodeURIComponent(v.path.split('/').pop() ?? '');

/** A shared cache in front of the detail endpoint that forgets the key: the first 200 of a URL is every key's. */
function urlKeyedCache(): NonNullable<Mutation['response']> {
  const cached = new Map<string, Answer>();
  return (answer, view) => {
    if (!isDetail(view) || view.method !== 'GET') return undefined;
    const url = `${view.path}?${view.rawQuery}`;
    const hit = cached.get(url);
    if (hit) return hit;
    if (answer.status === 200) cached.set(url, answer);
    return undefined;
  };
}

/**
 * A backend that reads a path otherwise than the gateway in front of it, which guards exact paths:
 * when `read` turns the path sent into a walks path, that path is served with the primary key.
 */
function backendReads(read: (path: string) => string): NonNullable<Mutation['request']> {
  return (req, v, world) => {
    const [path = '', ...query] = req.url.split('?');
    const routed = read(path);
    if (routed === path || !/^\/api\/v1\/walks(\/[^/]+)?$/.test(routed)) return;
    req.url = [routed, ...query].join('?');
    if (v.key !== 'CONFORMANCE_API_KEY') setKey(req, world, 'CONFORMANCE_API_KEY');
  };
}

/** Headers a client sets that claim its address (the broken server trusts a loopback one). */
const CLIENT_ADDRESS_HEADERS = [
  'x-forwarded-for',
  'x-real-ip',
  'x-originating-ip',
  'x-remote-ip',
  'x-client-ip',
  'true-client-ip',
  'x-custom-ip-authorization',
];

/** The demo key a header value is, by name. */
const keyNamed = (world: World, token: string | undefined) =>
  token === undefined ? undefined : CREDENTIAL_KEY_NAMES.find((name) => world.credentials[name] === token);

/**
 * A cache keyed by URL and campaign that keeps refusals too: the no-scope key's refusal of a URL
 * is served to the primary key (the same campaign) afterwards. Conditional requests go past it.
 */
function campaignKeyedRefusalCache(): NonNullable<Mutation['response']> {
  const cached = new Map<string, Answer>();
  // The owner's first read of a URL is always served; a read the owner makes again meets the
  // refusal the no-scope key left for that URL, whichever of the two first reads came first. So the
  // fault shows, whatever order the suite's concurrent requests arrive in, as the same read
  // answering differently the second time (AUTH-022's reads made again, after every other request).
  const ownerRead = new Set<string>();
  return (answer, view, _world, request) => {
    if (view.method !== 'GET' || headerOf(request, 'if-none-match') !== undefined) return undefined;
    const url = `${view.path}?${view.rawQuery}`;
    if (view.key === 'CONFORMANCE_NO_SCOPE_KEY' && answer.status === 403) {
      cached.set(url, answer);
      return undefined;
    }
    if (view.key !== 'CONFORMANCE_API_KEY') return undefined;
    if (!ownerRead.has(url)) {
      ownerRead.add(url);
      return undefined;
    }
    return cached.get(url);
  };
}

/** Replaces every `name` header with one of `value`, or removes them when it is undefined. */
function setHeader(req: Forwarded, name: string, value: string | undefined): void {
  const kept: string[] = [];
  for (let i = 0; i + 1 < req.headers.length; i += 2) {
    if (req.headers[i]?.toLowerCase() !== name)
      kept.push(req.headers[i] as string, req.headers[i + 1] as string);
  }
  if (value !== undefined) kept.push(name, value);
  req.headers = kept;
}

/** The key a request carries, from either header (Bearer first), as sent. */
function tokenOf(req: Forwarded): string | undefined {
  const bearer = /^bearer\s+(.+)$/i.exec(headerOf(req, 'authorization') ?? '')?.[1];
  return bearer ?? headerOf(req, 'x-api-key');
}

/** The first `name` header's value. */
function headerOf(req: Forwarded, name: string): string | undefined {
  for (let i = 0; i + 1 < req.headers.length; i += 2) {
    if (req.headers[i]?.toLowerCase() === name) return req.headers[i + 1];
  }
  return undefined;
}

function setKey(req: Forwarded, world: World, name: KeyName): void {
  setHeader(req, 'x-api-key', undefined);
  setHeader(req, 'authorization', `Bearer ${world.credentials[name]}`);
}

function setQuery(req: Forwarded, view: RequestView, rawQuery: string): void {
  req.url = `${view.path}${rawQuery ? `?${rawQuery}` : ''}`;
}

type Json = Record<string, unknown> & {
  data?: unknown;
  meta?: { count?: number };
  error?: { code?: string; message?: string };
};

/** Rewrites a JSON answer; answers that are not JSON pass unchanged. */
function json(answer: Answer, edit: (body: Json) => Json | void): Answer {
  let body: Json;
  try {
    body = JSON.parse(answer.body.toString('utf8')) as Json;
  } catch {
    return answer;
  }
  const edited = edit(body) ?? body;
  return { ...answer, body: Buffer.from(JSON.stringify(edited)) };
}

const isObjectBody = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const walksOf = (body: Json) => (Array.isArray(body.data) ? (body.data as Record<string, unknown>[]) : []);
const stopsOf = (body: Json) => {
  const data = body.data as { stops?: Record<string, unknown>[] } | undefined;
  return Array.isArray(data?.stops) ? data.stops : [];
};

function errorAnswer(
  status: number,
  code: string,
  message: string,
  headers: OutgoingHttpHeaders = {},
): Answer {
  return {
    status,
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
    body: Buffer.from(JSON.stringify({ ok: false, error: { code, message } })),
  };
}

const success = (data: unknown): Answer => ({
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: Buffer.from(JSON.stringify({ ok: true, data })),
});

/**
 * A session cookie opened by every keyed 200 and read instead of the key afterwards, even beside
 * the revoked key: the cookie outlives the key.
 */
function sessionCookie(): Mutation {
  const sessions = new Map<string, KeyName>();
  return {
    name: 'session-cookie',
    breaks: 'AUTH-023',
    description: 'a keyed answer sets a session cookie, which is then served alone or beside the revoked key',
    request: (req, _v, world) => {
      const sid = /(?:^|;\s*)sid=([^;]+)/.exec(headerOf(req, 'cookie') ?? '')?.[1];
      const key = sid === undefined ? undefined : sessions.get(sid);
      if (key) setKey(req, world, key);
    },
    response: (a, v) => {
      if (
        a.status !== 200 ||
        v.key === undefined ||
        v.key === 'unknown' ||
        v.key === 'CONFORMANCE_REVOKED_KEY'
      )
        return undefined;
      const sid = randomUUID();
      sessions.set(sid, v.key);
      return { ...a, headers: { ...a.headers, 'set-cookie': `sid=${sid}; Path=/; HttpOnly` } };
    },
  };
}

/**
 * A tenant cache that goes wrong late: from the `after`-th request on, the other campaign's key is
 * resolved to the primary campaign, so it reads the primary campaign's walks. Only probes made at
 * the end of a run meet it.
 */
function lateTenantCache(after: number): Mutation {
  let seen = 0;
  return {
    name: 'late-tenant-cache',
    breaks: 'ISOLATION-002',
    description: `from the ${after}th request on, the other campaign's key reads the primary campaign's walks`,
    request: (req, v, world) => {
      seen++;
      if (
        seen > after &&
        v.key === 'CONFORMANCE_OTHER_CAMPAIGN_KEY' &&
        isDetail(v) &&
        world.primaryIds.has(detailId(v))
      )
        setKey(req, world, 'CONFORMANCE_API_KEY');
    },
  };
}

export const MUTATIONS: Mutation[] = [
  // envelope
  {
    name: 'success-without-ok',
    breaks: 'ENVELOPE-001',
    description: 'success answers lack `ok`',
    response: (a) => (a.status === 200 ? json(a, (b) => void delete b.ok) : undefined),
  },
  {
    name: 'meta-count-off-by-one',
    breaks: 'ENVELOPE-002',
    description: 'meta.count is one more than the items returned',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) => void (b.meta = { count: walksOf(b).length + 1 }))
        : undefined,
  },
  {
    name: 'html-404',
    breaks: 'ENVELOPE-011',
    description: 'a 404 is an HTML error page',
    response: (a) =>
      a.status === 404
        ? {
            status: 404,
            headers: { 'content-type': 'text/html' },
            body: Buffer.from('<html><body><h1>Not Found</h1></body></html>'),
          }
        : undefined,
  },
  {
    name: 'error-without-message',
    breaks: 'ENVELOPE-003',
    description: 'error envelopes lack error.message',
    response: (a) => (a.status >= 400 ? json(a, (b) => void delete b.error?.message) : undefined),
  },
  {
    name: 'text-plain',
    breaks: 'ENVELOPE-004',
    description: 'every answer is labelled text/plain',
    response: (a) => ({ ...a, headers: { ...a.headers, 'content-type': 'text/plain; charset=utf-8' } }),
  },
  {
    name: 'lat-as-string',
    breaks: 'ENVELOPE-005',
    description: 'summary lat is a string',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) => walksOf(b).forEach((w) => void (w.lat = w.lat === null ? null : String(w.lat))))
        : undefined,
  },
  {
    name: 'xml-on-accept',
    breaks: 'ENVELOPE-006',
    description: 'Accept: application/xml gets XML',
    response: (_a, v) =>
      v.accept.includes('xml')
        ? { status: 200, headers: { 'content-type': 'application/xml' }, body: Buffer.from('<walks/>') }
        : undefined,
  },
  // walks list
  {
    name: 'list-data-object',
    breaks: 'COLLECTION-001',
    description: 'the list data is an object keyed by id',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) => void (b.data = Object.fromEntries(walksOf(b).map((w) => [String(w.id), w]))))
        : undefined,
  },
  {
    name: 'default-limit-20',
    breaks: 'COLLECTION-002',
    description: 'the default limit is 20',
    request: (req, v) => (isList(v) && !v.query.has('limit') ? setQuery(req, v, 'limit=20') : undefined),
  },
  {
    name: 'limit-1-gives-2',
    breaks: 'COLLECTION-003',
    description: 'limit=1 returns two walks',
    request: (req, v) => (isList(v) && v.rawQuery === 'limit=1' ? setQuery(req, v, 'limit=2') : undefined),
  },
  {
    name: 'limit-200-gives-201',
    breaks: 'COLLECTION-004',
    description: 'limit=200 returns 201 walks',
    response: (a, v) =>
      isList(v) && v.rawQuery === 'limit=200' && a.status === 200
        ? json(a, (b) => {
            const walks = walksOf(b);
            walks.push({ ...walks[0], id: randomUUID() });
            b.meta = { count: walks.length };
          })
        : undefined,
  },
  {
    name: 'limit-200-gives-10',
    breaks: 'COLLECTION-004',
    description: 'limit=200 returns fewer walks than the default list',
    request: (req, v) => (isList(v) && v.rawQuery === 'limit=200' ? setQuery(req, v, 'limit=10') : undefined),
  },
  {
    name: 'limit-ignored',
    breaks: 'COLLECTION-008',
    description: 'every limit but 1 and 200 is ignored (the default 50 comes back)',
    request: (req, v) =>
      isList(v) && v.query.has('limit') && !['1', '200'].includes(v.rawQuery.replace('limit=', ''))
        ? setQuery(req, v, '')
        : undefined,
  },
  {
    name: 'duplicate-walk',
    breaks: 'COLLECTION-005',
    description: 'the second walk repeats the first',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) => {
            const walks = walksOf(b);
            if (walks.length > 1) walks[1] = { ...walks[0] };
          })
        : undefined,
  },
  {
    name: 'summary-without-name',
    breaks: 'WALKS-LIST-006',
    description: 'summaries lack `name`',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) => walksOf(b).forEach((w) => void delete w.name))
        : undefined,
  },
  {
    name: 'counts-key-missing',
    breaks: 'WALKS-LIST-007',
    description: 'counts lacks visited_moved_away',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) =>
            walksOf(b).forEach((w) => void delete (w.counts as Record<string, number>).visited_moved_away),
          )
        : undefined,
  },
  {
    name: 'web-url-wrong-id',
    breaks: 'WALKS-LIST-008',
    description: "web_url names another walk's id",
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) => {
            const walks = walksOf(b);
            walks.forEach((w, i) => {
              const other = walks[(i + 1) % walks.length];
              if (other && walks.length > 1)
                w.web_url = String(w.web_url).replace(String(w.id), String(other.id));
            });
          })
        : undefined,
  },
  {
    name: 'app-link-other-slug',
    breaks: 'WALKS-LIST-008',
    description: 'app_link carries another slug than web_url',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) =>
            walksOf(b).forEach((w) => void (w.app_link = String(w.app_link).replace('/open/', '/open/x-'))),
          )
        : undefined,
  },
  {
    name: 'slug-varies',
    breaks: 'WALKS-LIST-009',
    description: 'one walk links under another campaign slug',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) => {
            const w = walksOf(b)[2];
            if (!w) return;
            w.web_url = String(w.web_url).replace('/dashboard/', '/dashboard/x-');
            w.app_link = String(w.app_link).replace('/open/', '/open/x-');
          })
        : undefined,
  },
  {
    name: 'wrong-web-base',
    breaks: 'WALKS-LIST-010',
    description: 'links use another web base URL than configured',
    response: (a, v, world) =>
      isList(v) && a.status === 200
        ? json(a, (b) =>
            walksOf(b).forEach((w) => {
              const base = world.credentials.CONFORMANCE_WEB_BASE_URL;
              w.web_url = String(w.web_url).replace(base, 'https://dashboard.wrong.example');
              w.app_link = String(w.app_link).replace(base, 'https://dashboard.wrong.example');
            }),
          )
        : undefined,
  },
  {
    name: 'empty-campaign-404',
    breaks: 'COLLECTION-006',
    description: 'a campaign without walks gets 404',
    response: (a, v) =>
      isList(v) && v.key === 'CONFORMANCE_EMPTY_CAMPAIGN_KEY'
        ? errorAnswer(404, 'not_found', 'No walks.')
        : undefined,
  },
  {
    name: 'counts-extra-total',
    breaks: 'WALKS-LIST-015',
    description: 'counts carries a `total` key besides the eight statuses',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) =>
            walksOf(b).forEach((w) => void ((w.counts as Record<string, number>).total = Number(w.count))),
          )
        : undefined,
  },
  // walk detail
  {
    name: 'archived-walk-listed',
    breaks: 'ITEM-001',
    description: 'an archived walk is listed first',
    response: (a, v, world) =>
      isList(v) && v.key === 'CONFORMANCE_API_KEY' && a.status === 200
        ? json(a, (b) => {
            const walks = walksOf(b);
            // Keep the count: the campaign has more walks than any limit, so the last one makes room.
            walks.unshift(world.archivedSummary);
            walks.pop();
            b.meta = { count: walks.length };
          })
        : undefined,
  },
  {
    name: 'detail-name-differs',
    breaks: 'ITEM-002',
    description: "the detail's name differs from the summary's",
    response: (a, v) =>
      isDetail(v) && a.status === 200
        ? json(a, (b) => void ((b.data as Json).name = `${String((b.data as Json).name)} (copy)`))
        : undefined,
  },
  {
    name: 'stops-out-of-order',
    breaks: 'WALK-DETAIL-003',
    description: 'the first two stops are swapped',
    response: (a, v) =>
      isDetail(v) && a.status === 200
        ? json(a, (b) => {
            const stops = stopsOf(b);
            if (stops.length > 1)
              [stops[0], stops[1]] = [
                stops[1] as Record<string, unknown>,
                stops[0] as Record<string, unknown>,
              ];
          })
        : undefined,
  },
  {
    name: 'positions-from-0',
    breaks: 'WALK-DETAIL-004',
    description: 'positions count from 0',
    response: (a, v) =>
      isDetail(v) && a.status === 200
        ? json(a, (b) => stopsOf(b).forEach((s) => void (s.position = Number(s.position) - 1)))
        : undefined,
  },
  {
    name: 'unknown-status',
    breaks: 'WALK-DETAIL-005',
    description: 'a stop has the status "knocked"',
    response: (a, v) =>
      isDetail(v) && a.status === 200
        ? json(a, (b) => {
            const stop = stopsOf(b)[0];
            if (stop) stop.status = 'knocked';
          })
        : undefined,
  },
  {
    name: 'duplicate-stop-ids',
    breaks: 'WALK-DETAIL-006',
    description: 'two stops share an id',
    response: (a, v) =>
      isDetail(v) && a.status === 200
        ? json(a, (b) => {
            const stops = stopsOf(b);
            if (stops[1] && stops[0]) stops[1].id = stops[0].id;
          })
        : undefined,
  },
  // consistency
  {
    name: 'count-off-by-one',
    breaks: 'CONSISTENCY-001',
    description: 'summary count is one more than the stops',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) => walksOf(b).forEach((w) => void (w.count = Number(w.count) + 1)))
        : undefined,
  },
  {
    name: 'counts-shifted',
    breaks: 'CONSISTENCY-002',
    description: 'one stop is counted under another status',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) =>
            walksOf(b).forEach((w) => {
              const counts = w.counts as Record<string, number>;
              const from = Object.keys(counts).find((k) => (counts[k] ?? 0) > 0);
              const to = Object.keys(counts).find((k) => k !== from);
              if (from && to) {
                counts[from] = (counts[from] ?? 0) - 1;
                counts[to] = (counts[to] ?? 0) + 1;
              }
            }),
          )
        : undefined,
  },
  {
    name: 'centroid-off',
    breaks: 'CONSISTENCY-003',
    description: 'the centroid is 0.001° north',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) =>
            walksOf(b).forEach((w) => void (w.lat = typeof w.lat === 'number' ? w.lat + 0.001 : w.lat)),
          )
        : undefined,
  },
  {
    name: 'null-island',
    breaks: 'CONSISTENCY-003',
    description: 'walks without located stops get 0, 0 instead of null',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) =>
            walksOf(b).forEach((w) => {
              if (w.lat === null) Object.assign(w, { lat: 0, lng: 0 });
            }),
          )
        : undefined,
  },
  // auth
  {
    name: 'bearer-ignored',
    breaks: 'AUTH-001',
    description: 'Authorization: Bearer is not read',
    request: (req) => setHeader(req, 'authorization', undefined),
  },
  {
    name: 'x-api-key-ignored',
    breaks: 'AUTH-002',
    description: 'x-api-key is not read',
    request: (req) => setHeader(req, 'x-api-key', undefined),
  },
  {
    name: 'x-api-key-other-data',
    breaks: 'AUTH-002',
    description: 'x-api-key lists one walk less than Bearer',
    response: (a, v) =>
      isList(v) && v.via === 'x-api-key' && a.status === 200
        ? json(a, (b) => {
            walksOf(b).pop();
            b.meta = { count: walksOf(b).length };
          })
        : undefined,
  },
  {
    name: 'no-key-accepted',
    breaks: 'AUTH-003',
    description: 'a request without a key is served',
    request: (req, v, world) => (v.key === undefined ? setKey(req, world, 'CONFORMANCE_API_KEY') : undefined),
  },
  {
    name: 'unknown-key-accepted',
    breaks: 'AUTH-005',
    description: 'an unknown well-formed key is served',
    request: (req, v, world) => {
      const token = (headerOf(req, 'authorization') ?? '').replace(/^Bearer\s+/i, '');
      if (v.key === 'unknown' && token.startsWith('svc_sk_live_')) setKey(req, world, 'CONFORMANCE_API_KEY');
    },
  },
  {
    name: 'basic-auth-accepted',
    breaks: 'AUTH-007',
    description: 'Basic auth is served',
    request: (req, _v, world) =>
      /^basic /i.test(headerOf(req, 'authorization') ?? '')
        ? setKey(req, world, 'CONFORMANCE_API_KEY')
        : undefined,
  },
  {
    name: 'any-scheme-accepted',
    breaks: 'AUTH-007',
    description: 'Authorization is read whatever its scheme: Token <key>, or the bare key, is served',
    alone: true,
    request: (req) => {
      const value = headerOf(req, 'authorization');
      if (value === undefined || /^bearer\s/i.test(value)) return;
      setHeader(req, 'authorization', `Bearer ${value.trim().split(/\s+/).pop() ?? ''}`);
    },
  },
  {
    name: 'key-prefix-optional',
    breaks: 'AUTH-007',
    description: 'a key is accepted without its svc_sk_live_ prefix',
    alone: true,
    request: (req) => {
      const token = /^bearer\s+(\S+)$/i.exec(headerOf(req, 'authorization') ?? '')?.[1];
      if (token && !token.startsWith('svc_sk_live_'))
        setHeader(req, 'authorization', `Bearer svc_sk_live_${token}`);
    },
  },
  {
    name: 'revoked-key-accepted',
    breaks: 'AUTH-009',
    description: 'the revoked key still works',
    request: (req, v, world) =>
      v.key === 'CONFORMANCE_REVOKED_KEY' ? setKey(req, world, 'CONFORMANCE_API_KEY') : undefined,
  },
  {
    name: 'no-scope-served',
    breaks: 'AUTH-011',
    description: 'a key without walks:read gets 200',
    request: (req, v, world) =>
      v.key === 'CONFORMANCE_NO_SCOPE_KEY' ? setKey(req, world, 'CONFORMANCE_API_KEY') : undefined,
  },
  {
    name: 'no-scope-401',
    breaks: 'AUTH-011',
    description: 'a key without walks:read gets 401 unauthorized',
    response: (a, v) =>
      v.key === 'CONFORMANCE_NO_SCOPE_KEY' && a.status === 403
        ? errorAnswer(401, 'unauthorized', 'The API key is not valid.')
        : undefined,
  },
  {
    name: 'x-api-key-ignores-revocation',
    breaks: 'AUTH-013',
    description: 'x-api-key has a second, weaker auth path that does not check revocation',
    request: (req, v, world) =>
      v.via === 'x-api-key' && v.key === 'CONFORMANCE_REVOKED_KEY'
        ? setHeader(req, 'x-api-key', world.credentials.CONFORMANCE_API_KEY)
        : undefined,
  },
  {
    name: 'x-api-key-other-campaign-as-empty',
    breaks: 'AUTH-013',
    description: "x-api-key resolves the other campaign's key to the empty campaign",
    alone: true,
    request: (req, v, world) =>
      v.via === 'x-api-key' && v.key === 'CONFORMANCE_OTHER_CAMPAIGN_KEY'
        ? setHeader(req, 'x-api-key', world.credentials.CONFORMANCE_EMPTY_CAMPAIGN_KEY)
        : undefined,
  },
  {
    name: 'key-prefix-compared',
    breaks: 'AUTH-014',
    description: 'a key is compared on all but its last two characters',
    alone: true,
    request: (req, v, world) => {
      const primary = world.credentials.CONFORMANCE_API_KEY;
      const token = tokenOf(req);
      if (
        v.key === 'unknown' &&
        token &&
        token.length >= primary.length - 1 &&
        token.startsWith(primary.slice(0, -2))
      ) {
        setKey(req, world, 'CONFORMANCE_API_KEY');
      }
    },
  },
  {
    name: 'trailing-slash-unguarded',
    breaks: 'AUTH-015',
    description: 'auth is bound to the exact list path; /api/v1/walks/ serves the walks to anyone',
    alone: true,
    request: (req, v, world) =>
      v.path === '/api/v1/walks/' && v.key !== 'CONFORMANCE_API_KEY'
        ? setKey(req, world, 'CONFORMANCE_API_KEY')
        : undefined,
  },
  {
    name: 'dot-segments-unguarded',
    breaks: 'AUTH-015',
    description:
      'auth is bound to the exact path but the router removes dot segments: /api/v1/./walks serves the walks to anyone',
    alone: true,
    request: (req, v, world) => {
      if (!hasDotSegment(req.url)) return;
      // `v.path` is the path with its dot segments removed (URL parsing), as this router sees it.
      setQuery(req, v, v.rawQuery);
      if (v.key !== 'CONFORMANCE_API_KEY') setKey(req, world, 'CONFORMANCE_API_KEY');
    },
  },
  {
    name: 'key-echoed-in-header',
    breaks: 'AUTH-017',
    description: 'answers repeat the first 16 characters of the key body in X-Debug-Key',
    alone: true,
    response: (a, _v, _world, req) => {
      const token = tokenOf(req);
      const body = token?.startsWith('svc_sk_live_') ? token.slice('svc_sk_live_'.length) : undefined;
      return body && body.length >= 16
        ? { ...a, headers: { ...a.headers, 'x-debug-key': body.slice(0, 16) } }
        : undefined;
    },
  },
  // the attacker's catalogue: one broken server per family, each caught by its rule alone
  {
    name: 'matrix-params-unguarded',
    breaks: 'AUTH-015',
    description:
      'the gateway guards exact paths and the backend drops matrix parameters: /api/v1/walks;x=1 serves the walks to anyone',
    alone: true,
    request: backendReads((path) => path.replace(/;[^/]*/g, '')),
  },
  {
    name: 'json-suffix-unguarded',
    breaks: 'AUTH-015',
    description:
      'the gateway guards exact paths and the backend strips a .json format suffix: /api/v1/walks.json serves the walks to anyone',
    alone: true,
    request: backendReads((path) => path.replace(/\.json$/, '')),
  },
  {
    name: 'encoded-slash-unguarded',
    breaks: 'AUTH-015',
    description:
      'the gateway guards exact paths and the backend decodes %2F: /api/v1/walks%2F<id> serves the walk to anyone',
    alone: true,
    request: backendReads((path) => path.replace(/%2f/gi, '/')),
  },
  {
    name: 'loopback-forwarded-for-trusted',
    breaks: 'AUTH-018',
    description:
      'a request claiming a loopback address in X-Forwarded-For, X-Real-IP or another client-address header is served without a key',
    alone: true,
    request: (req, v, world) => {
      const claimed = CLIENT_ADDRESS_HEADERS.some((name) =>
        /^(127\.|::1|localhost)/.test(headerOf(req, name) ?? ''),
      );
      if (claimed && v.key !== 'CONFORMANCE_API_KEY') setKey(req, world, 'CONFORMANCE_API_KEY');
    },
  },
  {
    name: 'rewrite-header-routed',
    breaks: 'AUTH-018',
    description:
      "the backend routes by X-Original-URL or X-Rewrite-URL, and the gateway's key check reads the request line: the header's path is served to anyone",
    alone: true,
    request: (req, v, world) => {
      const routed = headerOf(req, 'x-original-url') ?? headerOf(req, 'x-rewrite-url');
      if (routed === undefined) return;
      req.url = routed;
      if (v.key !== 'CONFORMANCE_API_KEY') setKey(req, world, 'CONFORMANCE_API_KEY');
    },
  },
  {
    name: 'head-unguarded',
    breaks: 'AUTH-019',
    description:
      'HEAD skips the key check: 200 for a walk that exists, in any campaign, and 404 for one that does not',
    alone: true,
    request: (req, v, world) => {
      if (
        v.method !== 'HEAD' ||
        (v.key !== undefined && v.key !== 'unknown' && v.key !== 'CONFORMANCE_REVOKED_KEY')
      )
        return;
      const theirs = isDetail(v) && world.otherIds.has(detailId(v));
      setKey(req, world, theirs ? 'CONFORMANCE_OTHER_CAMPAIGN_KEY' : 'CONFORMANCE_API_KEY');
    },
  },
  {
    name: 'forwarded-host-in-links',
    breaks: 'AUTH-020',
    description:
      'web_url and app_link are built from X-Forwarded-Host (or X-Host, or Forwarded: host=) when a request sends one',
    alone: true,
    response: (a, v, _world, req) => {
      const forwarded = /host=([^;,\s]+)/.exec(headerOf(req, 'forwarded') ?? '')?.[1];
      const host = headerOf(req, 'x-forwarded-host') ?? headerOf(req, 'x-host') ?? forwarded;
      if (host === undefined || !isList(v) || a.status !== 200) return undefined;
      return json(a, (b) =>
        walksOf(b).forEach((w) => {
          for (const link of ['web_url', 'app_link'])
            w[link] = String(w[link]).replace(/^https?:\/\/[^/]+/, `https://${host}`);
        }),
      );
    },
  },
  {
    name: 'two-keys-split-roles',
    breaks: 'AUTH-021',
    description:
      'with both key headers, the key in x-api-key is checked and the key in Authorization gives the campaign and scopes, even a revoked one',
    alone: true,
    request: (req, _v, world) => {
      const bearer = keyNamed(world, /^bearer\s+(\S+)$/i.exec(headerOf(req, 'authorization') ?? '')?.[1]);
      const checked = keyNamed(world, headerOf(req, 'x-api-key'));
      if (!bearer || !checked || checked === 'CONFORMANCE_REVOKED_KEY') return;
      setKey(req, world, bearer === 'CONFORMANCE_REVOKED_KEY' ? 'CONFORMANCE_API_KEY' : bearer);
    },
  },
  {
    name: 'refusal-cached-per-campaign',
    breaks: 'AUTH-022',
    description:
      "a cache keyed by URL and campaign keeps refusals: the no-scope key's 403 to a read the owner made is served afterwards to the owner's key",
    // Not alone: another rule's read made again (a pinned comparison asked twice) may meet the
    // cached refusal before AUTH-022's, depending on the order requests arrive in, and fail too.
    fresh: campaignKeyedRefusalCache,
  },
  {
    name: 'sms-send-accepted',
    breaks: 'METHODS-007',
    description:
      'POST /api/v1/sms/campaigns/{id}/send (or a POST tunnelled through an override) answers 202 queued',
    alone: true,
    response: (_a, v, _world, req) => {
      const aimed = (
        headerOf(req, 'x-http-method-override') ??
        v.query.get('_method') ??
        v.method
      ).toUpperCase();
      if (aimed !== 'POST' || !/^\/api\/v1\/sms\/campaigns\/[^/]+\/send$/.test(v.path)) return undefined;
      return { ...success({ queued: true }), status: 202 };
    },
  },
  // isolation
  {
    name: 'other-campaign-lists-ours',
    breaks: 'ISOLATION-001',
    description: "the other campaign's key lists this campaign's walks",
    request: (req, v, world) =>
      isList(v) && v.key === 'CONFORMANCE_OTHER_CAMPAIGN_KEY'
        ? setKey(req, world, 'CONFORMANCE_API_KEY')
        : undefined,
  },
  {
    name: 'other-campaign-fetches-ours',
    breaks: 'ISOLATION-002',
    description: "the other campaign's key fetches this campaign's walks",
    request: (req, v, world) =>
      isDetail(v) && v.key === 'CONFORMANCE_OTHER_CAMPAIGN_KEY' && world.primaryIds.has(detailId(v))
        ? setKey(req, world, 'CONFORMANCE_API_KEY')
        : undefined,
  },
  {
    name: 'other-campaign-404-differs',
    breaks: 'ISOLATION-003',
    description: "another campaign's walk gets a 404 with its own message",
    response: (a, v, world) =>
      isDetail(v) &&
      a.status === 404 &&
      world.primaryIds.has(detailId(v)) &&
      v.key === 'CONFORMANCE_OTHER_CAMPAIGN_KEY'
        ? errorAnswer(404, 'not_found', 'This walk belongs to another campaign.')
        : undefined,
  },
  {
    name: 'url-keyed-cache',
    breaks: 'ISOLATION-002',
    description: "a cache keyed by URL alone serves a walk's detail to any key once its own key fetched it",
    fresh: urlKeyedCache,
  },
  {
    name: 'we-fetch-theirs',
    breaks: 'ISOLATION-002',
    description: "this campaign's key fetches the other campaign's walks",
    request: (req, v, world) =>
      isDetail(v) && v.key === 'CONFORMANCE_API_KEY' && world.otherIds.has(detailId(v))
        ? setKey(req, world, 'CONFORMANCE_OTHER_CAMPAIGN_KEY')
        : undefined,
  },
  // not found
  {
    name: 'unknown-walk-code',
    breaks: 'NOT-FOUND-001',
    description: 'an unknown walk gets code "missing"',
    response: (a, v) =>
      isDetail(v) && a.status === 404
        ? json(a, (b) => void (b.error = { code: 'missing', message: 'Walk not found.' }))
        : undefined,
  },
  {
    name: 'malformed-id-500',
    breaks: 'NOT-FOUND-002',
    description: 'an id that is not a UUID crashes (500)',
    response: (a, v) =>
      isDetail(v) && !/^[0-9a-f-]{36}$/i.test(detailId(v))
        ? errorAnswer(500, 'internal_error', 'Something went wrong on our side; please retry later.')
        : undefined,
  },
  {
    name: 'unknown-path-served',
    breaks: 'NOT-FOUND-004',
    description: 'an unknown path under the API prefix answers 200 with an empty success envelope',
    response: (a, v) =>
      !isList(v) && !isDetail(v) && a.status === 404 && !/^\/api\/v1\/(lists|sms|signs)(\/|$)/.test(v.path)
        ? success([])
        : undefined,
  },
  {
    name: 'unknown-path-html',
    breaks: 'ENVELOPE-011',
    description: "unknown paths get the framework's HTML page",
    response: (a, v) =>
      !isList(v) && !isDetail(v) && a.status === 404
        ? {
            status: 404,
            headers: { 'content-type': 'text/html; charset=utf-8' },
            body: Buffer.from(`<pre>Cannot GET ${v.path}</pre>`),
          }
        : undefined,
  },
  {
    name: 'malformed-id-not-found-400',
    breaks: 'ENVELOPE-014',
    description: 'a walk id that is not a UUID gets 400 with code "not_found", the code of a 404',
    alone: true,
    response: (a, v) =>
      isDetail(v) && !/^[0-9a-f-]{36}$/i.test(detailId(v))
        ? errorAnswer(400, 'not_found', 'Walk not found.')
        : undefined,
  },
  {
    name: 'planned-lists-served',
    breaks: 'PLANNED-001',
    description: 'the planned /api/v1/lists serves saved lists',
    alone: true,
    response: (_a, v) =>
      v.method === 'GET' && /^\/api\/v1\/lists\/?$/.test(v.path)
        ? success([
            { id: 'list-1', name: 'Doors', count: 3, source: 'query', created_at: '2026-01-01T00:00:00Z' },
          ])
        : undefined,
  },
  // limits
  ...badLimitsOf(LIMIT).map((bad): Mutation => ({
    name: `limit-500-${bad.id.toLowerCase()}`,
    breaks: bad.id,
    description: `${bad.query} crashes (500)`,
    response: (a, v) =>
      isList(v) && v.rawQuery === bad.query
        ? errorAnswer(500, 'internal_error', 'Something went wrong on our side; please retry later.')
        : undefined,
  })),
  // the attacker's keyed catalogue
  {
    name: 'key-in-query',
    breaks: 'AUTH-023',
    description: 'a key in ?api_key= is read when no key header is sent',
    request: (req, v, world) => {
      const name = keyNamed(world, v.query.get('api_key') ?? undefined);
      if (v.key !== undefined || !name) return;
      v.query.delete('api_key');
      setQuery(req, v, v.query.toString());
      setKey(req, world, name);
    },
  },
  sessionCookie(),
  {
    name: 'campaign-parameter',
    breaks: 'AUTH-024',
    description: "?campaign=<slug> switches the primary key to that campaign's data",
    request: (req, v, world) => {
      if (v.key === 'CONFORMANCE_API_KEY' && v.query.get('campaign') === world.slugs.other)
        setKey(req, world, 'CONFORMANCE_OTHER_CAMPAIGN_KEY');
    },
  },
  {
    name: 'tenant-header',
    breaks: 'AUTH-024',
    description: "an X-Tenant-Id header naming a campaign serves that campaign's data to any key",
    request: (req, v, world) => {
      if (v.key === 'CONFORMANCE_API_KEY' && headerOf(req, 'x-tenant-id') === world.slugs.other)
        setKey(req, world, 'CONFORMANCE_OTHER_CAMPAIGN_KEY');
    },
  },
  {
    name: 'old-version-unfiltered',
    breaks: 'AUTH-025',
    description:
      'an old /api/v0 serves every campaign to any valid key, without campaign filtering or scopes',
    request: (req, v, world) => {
      if (!v.path.startsWith('/api/v0/walks') || v.key === undefined || v.key === 'unknown') return;
      const id = /^\/api\/v0\/walks\/([^/]+)$/.exec(v.path)?.[1];
      const owner =
        id !== undefined && world.primaryIds.has(id)
          ? 'CONFORMANCE_API_KEY'
          : 'CONFORMANCE_OTHER_CAMPAIGN_KEY';
      req.url = req.url.replace('/api/v0/', '/api/v1/');
      setKey(req, world, owner);
    },
  },
  {
    name: 'stops-sub-route',
    breaks: 'AUTH-025',
    description: "an undocumented /api/v1/walks/{id}/stops serves any campaign's stops to any valid key",
    request: (req, v, world) => {
      const id = /^\/api\/v1\/walks\/([^/]+)\/stops$/.exec(v.path)?.[1];
      if (id === undefined || v.key === undefined || v.key === 'unknown') return;
      req.url = `/api/v1/walks/${id}`;
      setKey(req, world, world.otherIds.has(id) ? 'CONFORMANCE_OTHER_CAMPAIGN_KEY' : 'CONFORMANCE_API_KEY');
    },
    response: (a, v) =>
      /\/stops$/.test(v.path) && a.status === 200
        ? json(a, (b) => ({ ok: true, data: stopsOf(b) }))
        : undefined,
  },
  {
    name: 'id-in-sql',
    breaks: 'SECURITY-005',
    description:
      "a walk id is concatenated into SQL: a quote gives a 500, ' OR '1'='1 another campaign's walk",
    request: (req, v, world) => {
      if (!isDetail(v) || !detailId(v).includes("' OR '1'='1")) return;
      req.url = `/api/v1/walks/${[...world.otherIds][0] ?? ''}`;
      setKey(req, world, 'CONFORMANCE_OTHER_CAMPAIGN_KEY');
    },
    response: (a, v) =>
      isDetail(v) && detailId(v).includes("'") && !detailId(v).includes("' OR '1'='1")
        ? errorAnswer(500, 'internal_error', 'Something went wrong on our side; please retry later.')
        : undefined,
  },
  {
    name: 'writes-on-real-walks',
    breaks: 'METHODS-008',
    description: 'PATCH and PUT on an existing walk answer 200 with the walk, whoever owns it',
    request: (req, v) => {
      if (!isDetail(v) || (v.method !== 'PATCH' && v.method !== 'PUT')) return;
      req.method = 'GET';
      setHeader(req, 'content-length', undefined);
      setHeader(req, 'content-type', undefined);
    },
  },
  lateTenantCache(650),
  {
    name: 'stops-null',
    breaks: 'ENVELOPE-005',
    description: 'a walk detail says "stops": null where the spec wants a list',
    alone: true,
    response: (a, v) =>
      isDetail(v) && a.status === 200
        ? json(a, (b) => {
            if (isObjectBody(b.data)) b.data.stops = null;
          })
        : undefined,
  },
  {
    name: 'list-null',
    breaks: 'ENVELOPE-005',
    description: 'an empty walks list says "data": null where the spec wants []',
    alone: true,
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) => {
            if (Array.isArray(b.data) && b.data.length === 0) b.data = null;
          })
        : undefined,
  },
  {
    name: 'head-body-on-wire',
    breaks: 'ENVELOPE-018',
    description: 'HEAD answers write the GET body on the wire after their headers',
    alone: true,
    request: (req, v) => {
      if (v.method === 'HEAD') req.method = 'GET';
    },
    response: (a, v) => (v.method === 'HEAD' ? { ...a, afterHeaders: a.body } : undefined),
  },
  // security misconfiguration
  {
    name: 'keyed-answers-public',
    breaks: 'SECURITY-001',
    description: 'keyed answers say Cache-Control: public, max-age=60',
    response: (a, v) =>
      v.key !== undefined && a.status === 200
        ? { ...a, headers: { ...a.headers, 'cache-control': 'public, max-age=60' } }
        : undefined,
  },
  {
    name: 'cors-any-origin-with-credentials',
    breaks: 'SECURITY-002',
    description: 'the Origin of any request is reflected, with Access-Control-Allow-Credentials: true',
    response: (a, _v, _world, req) => {
      const origin = headerOf(req, 'origin');
      return origin === undefined
        ? undefined
        : {
            ...a,
            headers: {
              ...a.headers,
              'access-control-allow-origin': origin,
              'access-control-allow-credentials': 'true',
            },
          };
    },
  },
  {
    name: 'trace-echoes',
    breaks: 'SECURITY-003',
    description: 'TRACE echoes the request, its headers (the key among them) included',
    response: (_a, v, _world, req) =>
      v.method === 'TRACE'
        ? {
            status: 200,
            headers: { 'content-type': 'message/http' },
            body: Buffer.from(`TRACE ${req.url} HTTP/1.1\r\n`),
          }
        : undefined,
  },
  {
    name: 'encoded-dots-500',
    breaks: 'ENVELOPE-011',
    description: 'a path with encoded dot segments (%2e%2e) breaks the router: 500 in the envelope',
    alone: true,
    response: (a, _v, _world, req) =>
      /%2e%2e/i.test(req.url.split('?')[0] ?? '')
        ? {
            status: 500,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from('{"ok":false,"error":{"code":"internal_error","message":"Something broke."}}'),
          }
        : undefined,
  },
  {
    name: 'stack-in-404',
    breaks: 'SECURITY-004',
    description: "a 404's message carries the stack of the exception behind it",
    response: (a) =>
      a.status === 404
        ? json(a, (b) => {
            if (b.error)
              b.error.message = `${b.error.message ?? ''}\n    at findWalk (/srv/app/dist/routes/walks.js:42:13)`;
          })
        : undefined,
  },
  {
    name: 'json-latin1',
    breaks: 'ENVELOPE-017',
    description: 'JSON answers declare charset=ISO-8859-1',
    response: (a) =>
      String(a.headers['content-type'] ?? '').startsWith('application/json')
        ? { ...a, headers: { ...a.headers, 'content-type': 'application/json; charset=ISO-8859-1' } }
        : undefined,
  },
  {
    name: 'other-links-primary-slug',
    breaks: 'CONSISTENCY-004',
    description: "the second campaign's walks link under the primary campaign's slug",
    response: (a, v, world) =>
      v.key === 'CONFORMANCE_OTHER_CAMPAIGN_KEY' && a.status === 200
        ? json(a, (b) => {
            const items = Array.isArray(b.data) ? b.data : [b.data];
            for (const item of items as Record<string, unknown>[]) {
              for (const field of ['web_url', 'app_link'])
                if (typeof item[field] === 'string')
                  item[field] = (item[field] as string).replace(
                    `/${world.slugs.other}/`,
                    `/${world.slugs.primary}/`,
                  );
            }
          })
        : undefined,
  },
  // methods
  ...(['POST', 'PUT', 'PATCH', 'DELETE'] as const).map((method, i): Mutation => ({
    name: `${method.toLowerCase()}-allowed`,
    breaks: `METHODS-00${i + 1}`,
    description: `${method} is accepted`,
    response: (_a, v) => (v.method === method ? success({}) : undefined),
  })),
  // faults that come and go, codings that do not decode
  {
    name: 'one-in-twenty-502',
    breaks: 'ENVELOPE-011',
    description: 'an upstream answers one walk detail in twenty with 502 (after the first few)',
    response: oneInTwenty((a, v) =>
      isDetail(v) ? errorAnswer(502, 'bad_gateway', 'The upstream did not answer.') : undefined,
    ),
  },
  {
    name: 'short-404-bodies',
    breaks: 'ENVELOPE-016',
    description: 'a gateway sends 404 bodies shorter than their Content-Length and closes the connection',
    response: (a) => (a.status === 404 ? { ...a, cut: true } : undefined),
  },
  {
    name: 'gzip-label-on-plain-body',
    breaks: 'ENVELOPE-012',
    description: 'list answers say Content-Encoding: gzip over a plain JSON body',
    response: (a, v) =>
      isList(v) && a.status === 200
        ? { ...a, headers: { ...a.headers, 'content-encoding': 'gzip' } }
        : undefined,
  },
  // drift (strict only)
  {
    name: 'undocumented-field',
    breaks: 'DRIFT-001',
    description: 'summaries carry an undocumented field',
    strictOnly: true,
    response: (a, v) =>
      isList(v) && a.status === 200
        ? json(a, (b) => walksOf(b).forEach((w) => void (w.region = 'north')))
        : undefined,
  },
  {
    name: 'undocumented-status',
    breaks: 'DRIFT-002',
    description: 'a malformed id gets 422, a status the spec does not document',
    strictOnly: true,
    response: (a, v) =>
      isDetail(v) && !/^[0-9a-f-]{36}$/i.test(detailId(v))
        ? errorAnswer(422, 'invalid_id', 'The id is not a UUID.')
        : undefined,
  },
  {
    name: 'problem-json',
    breaks: 'DRIFT-003',
    description: 'error answers are labelled application/problem+json',
    strictOnly: true,
    response: (a) =>
      a.status >= 400
        ? { ...a, headers: { ...a.headers, 'content-type': 'application/problem+json' } }
        : undefined,
  },
];

/** Answers a correct deployment may give: the suite must pass each (no false alarm). */
export type LegalVariant = Omit<Mutation, 'breaks' | 'strictOnly' | 'alone'>;

export const LEGAL_VARIANTS: LegalVariant[] = [
  {
    name: 'planned-501',
    description: 'the planned endpoints answer 501 not_implemented in the error envelope',
    response: (_a, v) =>
      /^\/api\/v1\/(lists|sms|signs)(\/|$)/.test(v.path)
        ? errorAnswer(501, 'not_implemented', 'This endpoint is planned and not active yet.')
        : undefined,
  },
  {
    name: 'path-variants-redirect',
    description:
      'other spellings of the live paths (dot segments too) redirect (308) to the canonical path, with or without a key',
    response: (_a, v, _world, req) => {
      // `v.path` has its dot segments removed already: the path as sent tells a dot-segment spelling.
      const sent = req.url.split('?')[0] ?? '';
      const canonical = v.path
        .replace(/\/+$/, '')
        .replace(/\/\/+/g, '/')
        .replace(/%77/gi, 'w')
        .replace(/\/WALKS(?=\/|$)/, '/walks');
      if (canonical === sent || !/^\/api\/v1\/walks(\/[^/]+)?$/.test(canonical)) return undefined;
      return { status: 308, headers: { location: canonical }, body: Buffer.alloc(0) };
    },
  },
  {
    name: 'refusals-403',
    description: 'revoked, unknown and malformed keys get 403 unauthenticated instead of 401',
    response: (a) =>
      a.status === 401 ? errorAnswer(403, 'unauthenticated', 'The API key is not valid.') : undefined,
  },
  {
    name: 'revalidation-ignored',
    description: 'If-None-Match is ignored: the same 200 comes back, with the same ETag',
    request: (req) => setHeader(req, 'if-none-match', undefined),
  },
  {
    name: 'etag-per-answer',
    description: 'every answer carries an ETag of its own, so If-None-Match never matches',
    response: (a) =>
      a.headers.etag === undefined
        ? undefined
        : { ...a, headers: { ...a.headers, etag: `"${randomUUID()}"` } },
  },
];

export interface MutationServer extends Listening {
  world: World;
  urlOf(mutation: LegalVariant | 'none'): string;
}

/** The reference server behind a proxy that applies the variant named in the path. */
export async function startMutationServer(): Promise<MutationServer> {
  const reference = await startReferenceServer({ log: false });
  const world = worldOf(generateDataset(), reference.credentials);
  const byName = new Map<string, LegalVariant>(
    [...MUTATIONS, ...LEGAL_VARIANTS].map((m) => [
      m.name,
      'fresh' in m && m.fresh ? { ...m, response: m.fresh() } : m,
    ]),
  );
  const upstream = new URL(reference.baseUrl);
  const agent = new Agent({ keepAlive: true });
  const listening = await listen(
    createServer((req, res) => {
      const match = /^\/v\/([^/?]+)(.*)$/.exec(req.url ?? '');
      const mutation = match?.[1] ? byName.get(match[1]) : undefined;
      const path = match?.[2] || '/';
      const forwarded = {
        method: req.method ?? 'GET',
        url: path.startsWith('/') ? path : `/${path}`,
        headers: [...req.rawHeaders],
      };
      const view = viewOf(forwarded, req.headers, world);
      mutation?.request?.(forwarded, view, world);
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          agent,
          method: forwarded.method,
          path: forwarded.url,
          headers: forwarded.headers,
        },
        (answer) => relay(answer, res, (got) => mutation?.response?.(got, view, world, forwarded) ?? got),
      );
      out.once('error', () => res.destroy());
      req.pipe(out);
    }),
  );
  return {
    ...listening,
    close: async () => {
      await listening.close();
      agent.destroy();
      await reference.close();
    },
    world,
    urlOf: (m) => `${listening.baseUrl}/v/${m === 'none' ? 'none' : m.name}`,
  };
}

/** Headers of one connection, not of the answer: the proxy's own connections decide them. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/** Reads the whole answer, lets `rewrite` change it, and sends what it returns. */
function relay(from: IncomingMessage, res: ServerResponse, rewrite: (answer: Answer) => Answer): void {
  const chunks: Buffer[] = [];
  from.on('data', (chunk: Buffer) => chunks.push(chunk));
  from.once('error', () => res.destroy());
  from.once('end', () => {
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(from.headers))
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    const out = rewrite({ status: from.statusCode ?? 502, headers, body: Buffer.concat(chunks) });
    const bodyless = res.req.method === 'HEAD' || out.status === 304;
    const sent = bodyless ? out.headers : { ...out.headers, 'content-length': out.body.length };
    res.writeHead(out.status, sent);
    if (out.afterHeaders && bodyless) {
      res.flushHeaders();
      res.socket?.write(out.afterHeaders);
    }
    if (out.cut && !bodyless) {
      res.write(out.body.subarray(0, Math.floor(out.body.length / 2)), () => res.destroy());
      return;
    }
    res.end(bodyless ? undefined : out.body);
  });
}

/** What the request asks, read from its headers as Node joins them (`headers`). */
function viewOf(req: Forwarded, headers: IncomingHttpHeaders, world: World): RequestView {
  const url = new URL(req.url, 'http://mutation.invalid');
  const { authorization, 'x-api-key': header } = headers;
  const bearer = /^bearer\s+(.+)$/i.exec(authorization ?? '')?.[1];
  const token = bearer ?? (typeof header === 'string' ? header : undefined);
  const key =
    token === undefined && authorization === undefined
      ? undefined
      : (CREDENTIAL_KEY_NAMES.find((name) => world.credentials[name] === token) ?? 'unknown');
  return {
    method: req.method,
    path: url.pathname,
    query: url.searchParams,
    rawQuery: url.search.replace(/^\?/, ''),
    key,
    via: bearer !== undefined ? 'bearer' : typeof header === 'string' ? 'x-api-key' : undefined,
    accept: headers.accept ?? '',
  };
}

function worldOf(dataset: Dataset, credentials: World['credentials']): World {
  const [primary, second] = dataset.campaigns;
  const active = (w: Walk, campaignId: string | undefined) =>
    w.campaignId === campaignId && w.state === 'active';
  const archived = dataset.walks.find((w) => w.campaignId === primary?.id && w.state !== 'active');
  if (!primary || !archived)
    throw new Error('the demo data set has no archived walk of the primary campaign');
  return {
    credentials,
    primaryIds: new Set(dataset.walks.filter((w) => active(w, primary.id)).map((w) => w.id)),
    otherIds: new Set(dataset.walks.filter((w) => active(w, second?.id)).map((w) => w.id)),
    archivedSummary: summaryOf(archived, primary.slug, credentials.CONFORMANCE_WEB_BASE_URL),
    slugs: { primary: primary.slug, other: second?.slug ?? '' },
  };
}

/** How the list would show a walk: only for the archived walk a broken server leaks. */
function summaryOf(walk: Walk, slug: string, base: string): Record<string, unknown> {
  const statuses = stopStatusesOf(loadSpec());
  const located = walk.stops.filter((s) => s.lat !== null && s.lng !== null);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return {
    id: walk.id,
    name: walk.name,
    lat: located.length ? mean(located.map((s) => s.lat as number)) : null,
    lng: located.length ? mean(located.map((s) => s.lng as number)) : null,
    count: walk.stops.length,
    counts: Object.fromEntries(
      statuses.map((s) => [s, walk.stops.filter((stop) => stop.status === s).length]),
    ),
    web_url: `${base}/dashboard/${slug}/walks/${walk.id}`,
    app_link: `${base}/open/${slug}/walks/${walk.id}`,
  };
}
