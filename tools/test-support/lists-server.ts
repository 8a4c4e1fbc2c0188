/**
 * A deployment where the lists endpoints have gone live: the reference server for the walks, and in
 * front of it a small server of its own for `GET /api/v1/lists` and `GET /api/v1/lists/{id}`, with
 * the same keys, the same envelope and the same refusals. With it, the spec copy `listsLiveSpec`
 * writes, and no conformance code of its own, the suite must judge the lists by every generic rule.
 * A `fault` breaks one rule, to see the suite catch it there.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { forward } from './forward.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { LIVE_SPEC_PATH, PLANNED_SPEC_PATH } from '../../spec/facts.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import { listen, type Listening } from './listen.ts';

/** The parts of a spec document the copy is made of. */
interface PathItem {
  get: { 'x-status'?: string; parameters?: Record<string, unknown>[]; responses: Record<string, unknown> };
}
interface SpecDoc {
  paths: Record<string, PathItem>;
  components: Record<string, Record<string, unknown>>;
}

/** The bounds of `limit` on the lists collection in the spec copy. */
export const LISTS_LIMIT = { minimum: 1, maximum: 100, default: 20 };

/**
 * A copy of the project's spec with the lists endpoints of the planned spec live: their paths without
 * `x-status: planned`, a `limit` on the collection, the statuses a live endpoint documents. Returns
 * the path of the copy.
 */
export function listsLiveSpec(): string {
  const live = parse(readFileSync(LIVE_SPEC_PATH, 'utf8')) as SpecDoc;
  const planned = parse(readFileSync(PLANNED_SPEC_PATH, 'utf8')) as SpecDoc;
  for (const path of ['/api/v1/lists', '/api/v1/lists/{id}']) {
    const item = structuredClone(planned.paths[path] as PathItem);
    delete item.get['x-status'];
    item.get.parameters = (item.get.parameters ?? []).filter((p: { name?: string }) => p.name !== 'limit');
    item.get.responses['400'] = { $ref: '#/components/responses/ListBadRequest' };
    item.get.responses['404'] ??= { $ref: '#/components/responses/NotFound' };
    item.get.responses['429'] = { $ref: '#/components/responses/RateLimited' };
    item.get.responses['500'] = { $ref: '#/components/responses/InternalError' };
    item.get.responses['401'] = { $ref: '#/components/responses/Unauthorized' };
    item.get.responses['403'] = { $ref: '#/components/responses/Forbidden' };
    live.paths[path] = item;
  }
  (live.paths['/api/v1/lists'] as PathItem).get.parameters = [
    {
      name: 'limit',
      in: 'query',
      required: false,
      schema: {
        type: 'integer',
        minimum: LISTS_LIMIT.minimum,
        maximum: LISTS_LIMIT.maximum,
        default: LISTS_LIMIT.default,
      },
    },
  ];
  for (const part of ['schemas', 'examples', 'parameters', 'responses']) {
    const into = (live.components[part] ??= {});
    for (const [name, value] of Object.entries(planned.components[part] ?? {})) into[name] ??= value;
  }
  const dir = mkdtempSync(join(tmpdir(), 'lists-live-'));
  const file = join(dir, 'openapi.yaml');
  writeFileSync(file, stringify(live));
  return file;
}

/**
 * The lists copy with the walks taken out: a spec whose only live operations are the lists, so
 * whatever asks "the first live collection" of it must ask the lists. Returns the path of the copy.
 */
export function listsOnlySpec(): string {
  const file = listsLiveSpec();
  const doc = parse(readFileSync(file, 'utf8')) as SpecDoc;
  for (const path of Object.keys(doc.paths)) if (path.startsWith('/api/v1/walks')) delete doc.paths[path];
  writeFileSync(file, stringify(doc));
  return file;
}

export type ListsFault =
  | 'none'
  | 'lists-keyless'
  | 'lists-other-campaign'
  | 'lists-limit-ignored'
  | 'lists-detail-renamed'
  | 'lists-last-unfetchable';

export interface ListsServer extends Listening {
  credentials: Record<string, string>;
  urlOf(fault: ListsFault): string;
}

interface SavedList {
  id: string;
  name: string;
  count: number;
  source: 'query' | 'area' | 'upload';
  created_at: string;
}

const SOURCES = ['query', 'area', 'upload'] as const;

function listsOf(n: number, campaign: string): SavedList[] {
  return Array.from({ length: n }, (_, i) => ({
    id: randomUUID(),
    name: `${campaign} list ${i + 1}`,
    count: (i * 37) % 500,
    source: SOURCES[i % 3] as SavedList['source'],
    created_at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
  }));
}

export type Campaign = 'primary' | 'other' | 'empty';

/** What the lists handler knows: the keys, the lists of each campaign. */
export interface ListsWorld {
  keys: Record<string, string>;
  campaignOf: Map<string, Campaign>;
  lists: Record<Campaign, SavedList[]>;
}

/** The saved lists each demo campaign holds: 12 for the primary one, 5 for the other, none for the empty one. */
export function listsWorldOf(credentials: Record<string, string>): ListsWorld {
  const { CONFORMANCE_WEB_BASE_URL: _web, ...keys } = credentials;
  return {
    keys,
    campaignOf: new Map<string, Campaign>([
      [keys.CONFORMANCE_API_KEY as string, 'primary'],
      [keys.CONFORMANCE_OTHER_CAMPAIGN_KEY as string, 'other'],
      [keys.CONFORMANCE_EMPTY_CAMPAIGN_KEY as string, 'empty'],
    ]),
    lists: { primary: listsOf(12, 'Primary'), other: listsOf(5, 'Other'), empty: [] },
  };
}

export async function startListsServer(): Promise<ListsServer> {
  const reference = await startReferenceServer({ log: false });
  const world = listsWorldOf(reference.credentials);
  const upstream = new URL(reference.baseUrl);
  const server = await listen(
    createServer((req, res) => {
      const match = /^\/f\/([^/]+)(\/.*)?$/.exec(req.url ?? '');
      const path = match?.[2] ?? '/';
      if (!/^\/api\/v1\/lists(\/|$|\?)/.test(path)) return forward(req, res, upstream, undefined, path);
      serveLists(
        world,
        (match?.[1] ?? 'none') as ListsFault,
        req,
        new URL(path, 'http://lists.invalid'),
        res,
      );
    }),
  );
  return {
    ...server,
    credentials: reference.credentials,
    urlOf: (fault) => `${server.baseUrl}/f/${fault}`,
    close: async () => {
      await server.close();
      await reference.close();
    },
  };
}

/** Answers in the API's envelope and manners. */
export function answerer(req: IncomingMessage, res: ServerResponse) {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      'cache-control': 'private, no-cache',
      vary: 'Authorization, x-api-key',
      'x-content-type-options': 'nosniff',
      ...headers,
    });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
  const refuse = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
    answer(status, { ok: false, error: { code, message } }, headers);
  return { answer, refuse };
}

/** `GET /api/v1/lists` and `GET /api/v1/lists/{id}`, with the fault asked for. */
export function serveLists(
  world: ListsWorld,
  fault: ListsFault,
  req: IncomingMessage,
  url: URL,
  res: ServerResponse,
): void {
  const { answer, refuse } = answerer(req, res);
  const item = /^\/api\/v1\/lists\/([^/]+)$/.exec(url.pathname);
  if (url.pathname !== '/api/v1/lists' && !item) return refuse(404, 'not_found', 'No such endpoint.');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return refuse(405, 'method_not_allowed', 'This API is read-only.', { allow: 'GET, HEAD' });
  }
  const who = campaignOf(world, fault, req);
  if (who === 'conflict') {
    return refuse(
      400,
      'conflicting_credentials',
      'Authorization and x-api-key carry different keys; send one key.',
    );
  }
  if (who === 'no-scope') return refuse(403, 'forbidden', 'This key lacks the lists:read scope.');
  if (!who) {
    return refuse(401, 'unauthorized', 'The API key is not valid.', {
      'www-authenticate': 'Bearer realm="canvassing"',
    });
  }
  if (item) {
    const id = decodeURIComponent(item[1] ?? '');
    const own = world.lists[who];
    const pool = fault === 'lists-other-campaign' ? [...world.lists.primary, ...world.lists.other] : own;
    const found = pool.find((list) => list.id === id);
    // A list that is listed but gone (deleted, not yet indexed) has no detail.
    const gone = fault === 'lists-last-unfetchable' && found === own.at(-1);
    if (!found || gone) return refuse(404, 'not_found', 'List not found.');
    const name = fault === 'lists-detail-renamed' ? `${found.name} (renamed)` : found.name;
    return answer(200, { ok: true, data: { ...found, name, voters: [] } });
  }
  const limit = limitOf(url);
  if (limit === undefined) {
    return refuse(
      400,
      'invalid_parameter',
      `limit must be an integer from ${LISTS_LIMIT.minimum} to ${LISTS_LIMIT.maximum}.`,
    );
  }
  const page = fault === 'lists-limit-ignored' ? world.lists[who] : world.lists[who].slice(0, limit);
  return answer(200, { ok: true, data: page, meta: { count: page.length } });
}

/** Whose the request's key is, or why it reads nothing. */
export function campaignOf(
  world: ListsWorld,
  fault: ListsFault,
  req: IncomingMessage,
): Campaign | 'conflict' | 'no-scope' | undefined {
  const bearer = req.headers.authorization;
  const apiKey = req.headers['x-api-key'];
  const token =
    bearer !== undefined
      ? /^Bearer\s+(\S+)$/i.exec(bearer)?.[1]
      : typeof apiKey === 'string'
        ? apiKey
        : undefined;
  if (bearer !== undefined && typeof apiKey === 'string' && token !== apiKey) return 'conflict';
  if (token === world.keys.CONFORMANCE_NO_SCOPE_KEY) return 'no-scope';
  const campaign = token === undefined ? undefined : world.campaignOf.get(token);
  if (!campaign && fault === 'lists-keyless' && bearer === undefined && apiKey === undefined)
    return 'primary';
  return campaign;
}

/** The page size asked, the default without one, undefined for a bad value. */
function limitOf(url: URL): number | undefined {
  const raw = url.searchParams.getAll('limit');
  if (raw.length === 0) return LISTS_LIMIT.default;
  const [only] = raw;
  const n = Number(only);
  const valid =
    raw.length === 1 && /^\d+$/.test(only ?? '') && n >= LISTS_LIMIT.minimum && n <= LISTS_LIMIT.maximum;
  return valid ? n : undefined;
}
