/**
 * A deployment whose lists collection pages with a cursor: the lists server's spec copy with a
 * `cursor` query parameter beside `limit` and a `next_cursor` field in the envelope (the common
 * shape, so the suite infers it), the reference server for the walks, and in front a small server
 * of its own for the lists. Its cursors are random tokens it remembers, each bound to the campaign
 * it was issued to. A `fault` breaks one pagination rule, to see the suite catch it there.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parse, stringify } from 'yaml';
import { startReferenceServer } from '../../reference-server/start.ts';
import { forward } from './forward.ts';
import { listen, type Listening } from './listen.ts';
import {
  answerer,
  type Campaign,
  campaignOf,
  LISTS_LIMIT,
  listsLiveSpec,
  listsWorldOf,
  type ListsWorld,
  serveLists,
} from './lists-server.ts';

export type PagedFault =
  | 'none'
  | 'page-limit-ignored'
  | 'cursor-stuck'
  | 'items-repeat'
  | 'unissued-accepted'
  | 'foreign-cursor'
  | 'cursor-scope-lost';

/** Each broken paged deployment: the rule it breaks, and whether the recording of its run shows it. */
export const PAGED_FAULTS: readonly {
  name: Exclude<PagedFault, 'none'>;
  breaks: string;
  description: string;
  /** Caught from the run's recording too (keys redacted: holders, not campaigns or scopes). */
  recorded: boolean;
}[] = [
  {
    name: 'page-limit-ignored',
    breaks: 'PAGINATION-001',
    description: 'the pages after the first ignore limit',
    recorded: true,
  },
  {
    name: 'cursor-stuck',
    breaks: 'PAGINATION-002',
    description: 'next_cursor never advances past the second page',
    recorded: true,
  },
  {
    name: 'items-repeat',
    breaks: 'PAGINATION-003',
    description: 'each page after the first starts with the last item of the one before',
    recorded: true,
  },
  {
    name: 'unissued-accepted',
    breaks: 'PAGINATION-004',
    description:
      'a cursor never issued is answered 200 with the first page (legal: the cursor format is not shown)',
    recorded: false,
  },
  {
    name: 'foreign-cursor',
    breaks: 'PAGINATION-005',
    description: "another campaign's cursor serves that campaign's lists",
    recorded: false,
  },
  {
    name: 'cursor-scope-lost',
    breaks: 'PAGINATION-006',
    description: 'a request with a cursor is served to the campaign of the cursor, whatever key it carries',
    recorded: false,
  },
];

export interface PagedServer extends Listening {
  credentials: Record<string, string>;
  urlOf(fault: PagedFault): string;
}

interface Doc {
  paths: Record<string, { get: { parameters?: unknown[] } }>;
  components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
}

/** The lists spec copy, its collection paged by `cursor` and `next_cursor`. Returns the copy's path. */
export function pagedListsSpec(): string {
  const file = listsLiveSpec();
  const doc = parse(readFileSync(file, 'utf8')) as Doc;
  doc.paths['/api/v1/lists']?.get.parameters?.push({
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'The next_cursor of the page before.',
    schema: { type: 'string' },
  });
  const envelope = doc.components.schemas.SavedListEnvelope;
  if (envelope) envelope.properties.next_cursor = { type: ['string', 'null'] };
  writeFileSync(file, stringify(doc));
  return file;
}

/** A cursor the server gave: the campaign it was issued to, and where the next page starts. */
interface Issued {
  campaign: Campaign;
  offset: number;
}

export async function startPagedServer(): Promise<PagedServer> {
  const reference = await startReferenceServer({ log: false });
  const world = listsWorldOf(reference.credentials);
  const issued = new Map<string, Issued>();
  const upstream = new URL(reference.baseUrl);
  const server = await listen(
    createServer((req, res) => {
      const match = /^\/f\/([^/]+)(\/.*)?$/.exec(req.url ?? '');
      const path = match?.[2] ?? '/';
      const url = new URL(path, 'http://paged.invalid');
      if (!/^\/api\/v1\/lists(\/|$)/.test(url.pathname)) return forward(req, res, upstream, undefined, path);
      if (url.pathname !== '/api/v1/lists' || (req.method !== 'GET' && req.method !== 'HEAD'))
        return serveLists(world, 'none', req, url, res);
      servePage(world, issued, (match?.[1] ?? 'none') as PagedFault, req, url, res);
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

/** `GET /api/v1/lists`, one page, with the fault asked for. */
function servePage(
  world: ListsWorld,
  issued: Map<string, Issued>,
  fault: PagedFault,
  req: IncomingMessage,
  url: URL,
  res: ServerResponse,
): void {
  const { answer, refuse } = answerer(req, res);
  const cursor = url.searchParams.get('cursor');
  const known = cursor === null ? undefined : issued.get(cursor);
  const who = fault === 'cursor-scope-lost' && known ? known.campaign : campaignOf(world, 'none', req);
  if (who === 'conflict')
    return refuse(400, 'conflicting_credentials', 'Authorization and x-api-key carry different keys.');
  if (who === 'no-scope') return refuse(403, 'forbidden', 'This key lacks the lists:read scope.');
  if (!who)
    return refuse(401, 'unauthorized', 'The API key is not valid.', {
      'www-authenticate': 'Bearer realm="canvassing"',
    });
  const limit = limitOf(url);
  const badCursor = url.searchParams.getAll('cursor').length > 1 || (cursor !== null && !known);
  if (limit === undefined || (badCursor && fault !== 'unissued-accepted'))
    return refuse(400, 'invalid_parameter', 'limit or cursor is not valid.');
  if (known && known.campaign !== who && fault !== 'foreign-cursor')
    return refuse(400, 'invalid_parameter', 'limit or cursor is not valid.');
  const campaign = known && fault === 'foreign-cursor' ? known.campaign : who;
  const all = world.lists[campaign];
  const start = known ? Math.max(0, known.offset - (fault === 'items-repeat' ? 1 : 0)) : 0;
  const end = known && fault === 'page-limit-ignored' ? all.length : start + limit;
  const page = all.slice(start, end);
  let next: string | null = null;
  if (start + page.length < all.length) {
    next =
      fault === 'cursor-stuck' && cursor !== null && known ? cursor : randomBytes(9).toString('base64url');
    issued.set(next, { campaign, offset: start + page.length });
  }
  return answer(200, { ok: true, data: page, meta: { count: page.length }, next_cursor: next });
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
