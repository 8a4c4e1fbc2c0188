/**
 * The requests of the keyed catalogue (`catalogue.ts`, `KEYED_CATALOGUE`) a live run sends: each
 * entry made from a plain read of a live protected route, asked as its family says (whose key, on
 * whose item), with what the run has seen (the items each campaign listed, the other campaign's
 * identifiers). A default run tries each default entry once, the routes it applies on taking
 * turns; `--depth full` tries every entry on every route. A DELETE goes to a real item only under
 * `--allow-destructive`.
 */
import type { Campaign } from '../../core/roles.ts';
import { PRIMARY_KEY, REVOKED_KEY } from '../../core/roles.ts';
import type { ListedItem, Probe, World } from '../../core/rule.ts';
import type { OperationModel } from '../../core/spec-model.ts';
import { safeDecode } from '../../core/spec-model.ts';
import type { Exchange, RequestSpec } from '../../core/exchange.ts';
import { collectionRequest } from '../requests.ts';
import type { KeyedAsking, KeyedEntry, KeyedFamily, RunFacts } from './catalogue.ts';
import { KEYED_FAMILIES, keyedFamilyOf, nameIndexOf } from './catalogue.ts';
import { shapeOf } from './plan.ts';
import type { Shape } from './shapes.ts';

/** The live protected reads the keyed catalogue is tried on. */
const routesOf = (world: World) =>
  world.spec.live.filter((op) => op.method === 'GET' && op.secured && op.kind !== 'other');

/** The item an asking names on an item route: one of the key's campaign's, or one of the other's. */
function itemOf(op: OperationModel, world: World, whose: KeyedAsking['item']): ListedItem | undefined {
  const campaign: Campaign = whose === 'own' ? 'primary' : 'other';
  const id = whose === 'own' ? world.realIds(op)[0] : world.sweep(op, 'other')[0];
  if (id === undefined || id === world.unknownId) return undefined;
  const listed = op.collection ? world.listed(op.collection, campaign) : [];
  return listed.find((item) => item.id === id) ?? { id, summary: {} };
}

/**
 * The other campaign's identifiers, as its data shows them: the segments of its links that no
 * link of the primary campaign has (its slug), then the values of its fields named for a campaign.
 */
function otherIdentifiers(world: World): string[] {
  const found = new Set<string>();
  for (const op of world.spec.live) {
    if (op.kind !== 'collection') continue;
    const own = world.listed(op, 'primary');
    const other = world.listed(op, 'other');
    const ownSegments = new Set(own.flatMap((item) => linkSegments(item.summary)));
    const ids = new Set([...own, ...other].map((item) => item.id));
    for (const item of other) {
      for (const segment of linkSegments(item.summary))
        if (!ownSegments.has(segment) && !ids.has(segment)) found.add(segment);
      for (const [field, value] of Object.entries(item.summary))
        if (/campaign|tenant/i.test(field) && (typeof value === 'string' || typeof value === 'number'))
          found.add(String(value));
    }
  }
  return [...found];
}

/** The path segments of the links a record holds (absolute http(s) URLs among its fields). */
function linkSegments(record: Record<string, unknown>): string[] {
  return Object.values(record).flatMap((value) =>
    typeof value === 'string' && /^https?:\/\//i.test(value) && URL.canParse(value)
      ? new URL(value).pathname
          .split('/')
          .filter((segment) => segment !== '')
          .map(safeDecode)
      : [],
  );
}

/** The plain read an entry is made from, asked as `asking` says, and the facts it is made with. */
function baseOf(
  op: OperationModel,
  world: World,
  asking: KeyedAsking,
  identifiers: readonly string[],
): { request: RequestSpec; facts: RunFacts } | undefined {
  const facts: RunFacts = { otherIdentifiers: identifiers };
  if (op.kind === 'collection') {
    const request = collectionRequest(op, world, { key: asking.key }, 'full');
    return request ? { request, facts } : undefined;
  }
  const item = itemOf(op, world, asking.item);
  if (!item) return undefined;
  const request = world.request(op, { key: asking.key, id: item.id });
  return request ? { request, facts: { ...facts, item: item.summary } } : undefined;
}

/** A keyed entry applied to a base request, or undefined when it does not apply there. */
function madeOn(
  op: OperationModel,
  base: RequestSpec,
  facts: RunFacts,
  entry: KeyedEntry,
): RequestSpec | undefined {
  const made = entry.make(shapeOf(base, op.path), facts);
  if (!made) return undefined;
  const request: RequestSpec = { path: made.path, method: made.method };
  if (made.query !== undefined) request.query = made.query;
  if (Object.keys(made.headers).length > 0) request.headers = { ...made.headers };
  if (made.auth !== undefined) request.auth = made.auth;
  if (made.body !== undefined) request.body = made.body;
  return request;
}

/** The askings of an entry on a route: a collection's read names no item, so whose item is moot. */
function askingsOn(op: OperationModel, family: KeyedFamily): readonly KeyedAsking[] {
  const askings: readonly KeyedAsking[] = KEYED_FAMILIES[family].askings;
  if (op.kind !== 'collection') return askings;
  return askings.filter((a, i) => askings.findIndex((b) => b.key === a.key) === i);
}

/** An entry's requests on one route (none for a DELETE of a real item without `--allow-destructive`). */
function probesOf(
  entry: KeyedEntry,
  op: OperationModel,
  world: World,
  identifiers: readonly string[],
): Probe[] {
  if (entry.destructive && !world.allowDestructive) return [];
  return askingsOn(op, entry.family).flatMap((asking) => {
    if (!world.has(asking.key)) return [];
    const base = baseOf(op, world, asking, identifiers);
    const request = base ? madeOn(op, base.request, base.facts, entry) : undefined;
    return request ? [{ request, private: true as const, transform: entry.name }] : [];
  });
}

/** Whether an entry makes a request on a route, judged on a placeholder of it. */
function appliesOn(entry: KeyedEntry, op: OperationModel): boolean {
  const shape: Shape = {
    method: 'GET',
    path: op.path.replace(/\{[^}]+\}/g, 'id'),
    query: 'q=1',
    headers: {},
    auth: { key: PRIMARY_KEY, via: 'bearer' },
    nameAt: nameIndexOf(op.path),
  };
  return entry.make(shape, { item: {}, otherIdentifiers: ['x'] }) !== undefined;
}

/**
 * The entries of a family a run tries on a route: every one under `--depth full`; by default each
 * default entry once, on one of the routes it applies on, the routes taking turns.
 */
function entriesOn(family: KeyedFamily, op: OperationModel, world: World): readonly KeyedEntry[] {
  const entries = keyedFamilyOf(family);
  if (world.depth === 'full') return entries;
  const shift = Object.keys(KEYED_FAMILIES).indexOf(family);
  return entries
    .filter((entry) => entry.default)
    .filter((entry, i) => {
      const routes = routesOf(world).filter((route) => appliesOn(entry, route));
      return routes[(i + shift) % Math.max(routes.length, 1)] === op;
    });
}

/** A keyed family's requests on one live operation. */
export function keyedProbes(family: KeyedFamily, op: OperationModel, world: World): Probe[] {
  if (!routesOf(world).includes(op)) return [];
  const identifiers = otherIdentifiers(world);
  return entriesOn(family, op, world).flatMap((entry) => probesOf(entry, op, world, identifiers));
}

/**
 * The cookies an answer sets (`name=value` pairs), as a client would send them back. Node joins
 * several Set-Cookie headers with `, `; a cookie's Expires date has a comma too, so a pair starts
 * only where a name and `=` follow.
 */
export function cookiesSet(exchange: Exchange): string | undefined {
  const header = exchange.response?.headers['set-cookie'];
  if (!header) return undefined;
  const pairs = header
    .split(/,\s*(?=[^;,=\s]+=)/)
    .map((cookie) => cookie.split(';')[0]?.trim() ?? '')
    .filter((pair) => pair.includes('='));
  return pairs.length > 0 ? pairs.join('; ') : undefined;
}

/**
 * A keyed read whose answer, when it sets a cookie, is replayed with the cookie alone and with the
 * cookie and the revoked key: a session a key opened must not stand in for the key, nor outlive it.
 * The read is the one other rules send already, so it costs nothing when no cookie is set.
 */
export function cookieReplays(op: OperationModel, world: World): Probe[] {
  if (!routesOf(world).includes(op)) return [];
  const read =
    op.kind === 'collection'
      ? collectionRequest(op, world, { key: PRIMARY_KEY })
      : world.request(op, { key: PRIMARY_KEY });
  if (!read) return [];
  const replay =
    (withRevoked: boolean) =>
    (answered: Exchange): RequestSpec | undefined => {
      const cookie = cookiesSet(answered);
      if (cookie === undefined || (withRevoked && !world.has(REVOKED_KEY))) return undefined;
      const { auth: _key, ...rest } = read;
      return {
        ...rest,
        headers: { ...read.headers, Cookie: cookie },
        ...(withRevoked ? { auth: { key: REVOKED_KEY, via: 'bearer' as const } } : {}),
      };
    };
  return [
    { request: read, followUp: replay(false) },
    { request: read, followUp: replay(true) },
  ];
}
