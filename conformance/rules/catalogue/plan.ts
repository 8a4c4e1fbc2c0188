/**
 * The requests the catalogue needs from a live run. A default run tries each default entry once,
 * on whose request its family is first tried on (no key, the cheapest refusal; the owner's key
 * where a link or a cached answer needs data), the live routes taking turns: methods on items
 * (where existence shows), host headers where the data holds links; and the spellings the project
 * decided on every route. One answer serves two verdicts where it can: an item's answer to a trick
 * is judged for data and, beside an unknown item's, for what it tells of the item's existence.
 *
 * `--depth full` tries every entry on every refusal of every live route (items on a real and an
 * unknown id), and on every planned path and route that would send, with the owner's key: those
 * serve no one, so the strongest key's answer stands for every weaker one.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { resolveRef } from '../../../spec/contract.ts';
import { isObject } from '../../../spec/json-value.ts';
import { PRIMARY_KEY } from '../../core/roles.ts';
import type { Ask, Probe, World } from '../../core/rule.ts';
import type { OperationModel, SpecModel } from '../../core/spec-model.ts';
import { pathOf, successProperty } from '../../core/spec-model.ts';
import type { RequestSpec } from '../../core/exchange.ts';
import { collectionRequest } from '../requests.ts';
import type { Family, Transform, Tried } from './catalogue.ts';
import { FAMILIES, familyOf, nameIndexOf } from './catalogue.ts';
import type { Shape } from './shapes.ts';
import type { Target } from './targets.ts';
import { REFUSALS, targetsOf } from './targets.ts';

/** When a family's requests go: the owner's first, others' after them, reads made again last. */
const PHASE: Record<Family, 1 | 2 | 3> = {
  path: 2,
  address: 2,
  method: 2,
  host: 1,
  'two-keys': 2,
  cache: 3,
};

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** The request of a shape, on the base request it was made from. */
function requestOf(base: RequestSpec, shape: Shape): RequestSpec {
  const request: RequestSpec = { ...base, path: shape.path, method: shape.method };
  if (shape.query !== undefined) request.query = shape.query;
  else delete request.query;
  if (Object.keys(shape.headers).length > 0) request.headers = { ...shape.headers };
  else delete request.headers;
  if (shape.auth !== undefined) request.auth = shape.auth;
  else delete request.auth;
  if (shape.madeUpKey !== undefined) request.madeUpKey = shape.madeUpKey;
  else delete request.madeUpKey;
  if (shape.again !== undefined) request.again = shape.again;
  // A read carries no body, whichever method it was tunnelled through.
  if (READ_METHODS.has(shape.method.toUpperCase())) delete request.body;
  return request;
}

/** A base request of the route of this template, as a transform (or a keyed entry) reads it. */
export function shapeOf(base: RequestSpec, template: string): Shape {
  return {
    method: base.method ?? 'GET',
    path: base.path,
    ...(base.query !== undefined ? { query: base.query } : {}),
    headers: base.headers ?? {},
    ...(base.auth !== undefined ? { auth: base.auth } : {}),
    ...(base.madeUpKey !== undefined ? { madeUpKey: base.madeUpKey } : {}),
    ...(base.again !== undefined ? { again: base.again } : {}),
    nameAt: nameIndexOf(template),
  };
}

/** A transform applied to a base request of a route, or undefined when it does not apply. */
export function applied(base: RequestSpec, template: string, transform: Transform): RequestSpec | undefined {
  const made = transform.make(shapeOf(base, template));
  return made ? requestOf(base, made) : undefined;
}

/** The base request of a route, asked so, on an item when it names one. */
function baseRequest(target: Target, world: World, ask: Ask, id?: string): RequestSpec | undefined {
  const op = target.op;
  if (op) {
    if (op.kind === 'collection') return collectionRequest(op, world, ask, 'full');
    return world.request(op, id === undefined ? ask : { ...ask, id });
  }
  const anyLive = world.spec.live[0] as OperationModel;
  const path = pathOf({ path: target.template }, id ?? world.unknownId);
  const post = target.method === 'POST' ? { method: 'POST', body: '{}' } : {};
  return world.request(anyLive, { ...ask, ...post, path });
}

/** A tried ask: how the request is made, and the items it is made on. */
interface TriedAsk {
  ask: Ask;
  ids: (string | undefined)[];
}

/** The items a route's tricks are tried on: one real item, and an unknown one where existence shows. */
function idsOf(target: Target, world: World, withUnknown: boolean): (string | undefined)[] {
  if (!target.item) return [undefined];
  if (!target.op) return [world.unknownId];
  const real = world.realIds(target.op)[0];
  return withUnknown && real !== world.unknownId ? [real, world.unknownId] : [real];
}

/** Whose requests a family's entry is tried on, on one route. */
function triedAsksOf(transform: Transform, target: Target, world: World): TriedAsk[] {
  const full = world.depth === 'full';
  const tried: Tried = transform.tried ?? FAMILIES[transform.family].tried;
  const existence = transform.family === 'method' || full;
  if (!full || target.kind !== 'operation') {
    if (tried === 'the owner' || target.kind !== 'operation')
      return [{ ask: { key: PRIMARY_KEY }, ids: idsOf(target, world, false) }];
    return [{ ask: {}, ids: idsOf(target, world, existence) }];
  }
  if (transform.family === 'two-keys') return [{ ask: {}, ids: idsOf(target, world, false) }];
  const refusals = REFUSALS.filter(
    (refusal) => (!refusal.needs || world.has(refusal.needs)) && (!refusal.itemsOnly || target.item),
  ).map((refusal) => ({ ask: refusal.ask, ids: idsOf(target, world, existence) }));
  const owner = { ask: { key: PRIMARY_KEY }, ids: idsOf(target, world, false) };
  return transform.family === 'host' || transform.family === 'cache' ? [owner, ...refusals] : refusals;
}

/** One entry's requests on one route (none that would need a key the run does not have). */
function probesOf(transform: Transform, target: Target, world: World): Probe[] {
  return triedAsksOf(transform, target, world).flatMap(({ ask, ids }) =>
    ids.flatMap((id) => {
      const base = baseRequest(target, world, ask, id);
      const request = base ? applied(base, target.template, transform) : undefined;
      if (!request || ![request.auth ?? []].flat().every((use) => world.has(use.key))) return [];
      return [{ request, phase: PHASE[transform.family], private: true as const, transform: transform.name }];
    }),
  );
}

/**
 * The entries of a family a run tries on a live route: in full, all of them; by default, the
 * spellings D-PATH-UNKNOWN decides on every route (what every run has always tried), and each other
 * default entry once per run, the routes it exercises taking turns, so a further live endpoint
 * costs the catalogue next to nothing.
 */
function entriesOn(family: Family, op: OperationModel, world: World): readonly Transform[] {
  const entries = familyOf(family);
  if (world.depth === 'full') return entries;
  const shift = FAMILY_ORDER.indexOf(family);
  const rotated = entries
    .filter((t) => t.default && !t.decided)
    .filter((transform, i) => {
      const routes = routesOf(family, world).filter((route) => appliesOn(transform, route));
      return routes[(i + shift) % Math.max(routes.length, 1)] === op;
    });
  const decided = routesOf(family, world).includes(op) ? entries.filter((t) => t.decided) : [];
  return [...decided, ...rotated];
}

/** Whether an entry makes a request on a route (an encoded slash before the item needs an item). */
function appliesOn(transform: Transform, op: OperationModel): boolean {
  const path = op.path.replace(/\{[^}]+\}/g, 'id');
  return transform.make({ method: 'GET', path, headers: {}, nameAt: nameIndexOf(op.path) }) !== undefined;
}

const FAMILY_ORDER = Object.keys(FAMILIES) as Family[];

/**
 * The live routes a family's default entries take turns on: an item's (where existence shows)
 * for methods, a route whose data holds links for host headers, every live route otherwise.
 */
function routesOf(family: Family, world: World): OperationModel[] {
  const live = targetsOf(world.spec).flatMap((t) => (t.kind === 'operation' && t.op ? [t.op] : []));
  if (family === 'method') return live.filter((op) => op.kind === 'item');
  if (family === 'host') return live.filter((op) => carriesLinks(world.spec, op));
  return live;
}

/** A family's requests on one live operation. */
export function familyProbes(family: Family, op: OperationModel, world: World): Probe[] {
  const target = targetsOf(world.spec).find((t) => t.op === op);
  if (!target) return [];
  return entriesOn(family, op, world).flatMap((transform) => probesOf(transform, target, world));
}

/** Whether an operation's success data holds a link (a string of `format: uri`, at any depth). */
function carriesLinks(spec: SpecModel, op: OperationModel): boolean {
  const data = successProperty(spec.doc, op, 'data');
  return data !== undefined && holdsUri(spec, data, 0);
}

function holdsUri(spec: SpecModel, node: unknown, depth: number): boolean {
  if (depth > 8 || !isObject(node)) return false;
  const schema = resolveRef<OpenAPIV3_1.SchemaObject>(spec.doc, node as OpenAPIV3_1.SchemaObject);
  if (schema.format === 'uri') return true;
  const parts: unknown[] = [
    ...Object.values(schema.properties ?? {}),
    ...('items' in schema && schema.items ? [schema.items] : []),
    ...(schema.allOf ?? []),
    ...(schema.oneOf ?? []),
    ...(schema.anyOf ?? []),
  ];
  return parts.some((part) => holdsUri(spec, part, depth + 1));
}

/** A family's requests on the planned paths (`--depth full`): the owner's key stands for every other. */
export function plannedProbes(family: Family, world: World): Probe[] {
  if (world.depth !== 'full' || family === 'two-keys' || family === 'cache') return [];
  const planned = targetsOf(world.spec).filter((t) => t.kind === 'planned');
  return familyOf(family).flatMap((transform) =>
    planned.flatMap((target) => probesOf(transform, target, world)),
  );
}

/**
 * The routes that would send, POSTed with the owner's key, and the default method tricks that
 * tunnel a POST; under `--depth full`, every route that would send with every entry that applies.
 */
export function sendProbes(world: World): Probe[] {
  const full = world.depth === 'full';
  const routes = targetsOf(world.spec).filter((t) => t.kind === 'send' && (full || t.default));
  const plain = routes.flatMap((target) => {
    const request = baseRequest(target, world, { key: PRIMARY_KEY });
    return request ? [{ request, private: true as const }] : [];
  });
  // By default the tunnelled POSTs go to the children that would send; every trick to every route in full.
  const tricks = routes
    .filter((target) => full || target.item)
    .flatMap((target) => familiesForSend(full).flatMap((transform) => probesOf(transform, target, world)));
  return [...plain, ...tricks];
}

/**
 * The entries tried on a route that would send: the default override tricks, or in full every
 * entry that still sends a POST or names one (a HEAD sends nothing).
 */
function familiesForSend(full: boolean): readonly Transform[] {
  return (['path', 'address', 'method', 'host'] as const)
    .flatMap((family) => familyOf(family))
    .filter((t) => sendsPost(t) && (full || (t.family === 'method' && t.default && overrides(t))));
}

/** Whether an entry, applied to a POST, still sends one or names one in a header or a parameter. */
export function sendsPost(transform: Transform): boolean {
  const made = transform.make({ method: 'POST', path: '/x', headers: {}, nameAt: 1 });
  if (!made) return false;
  return (
    made.method === 'POST' ||
    Object.values(made.headers).includes('POST') ||
    [...new URLSearchParams(made.query).values()].includes('POST')
  );
}

/** Whether an entry tunnels one method through another (it changes the method and names the first). */
function overrides(transform: Transform): boolean {
  const made = transform.make({ method: 'POST', path: '/x', headers: {}, nameAt: 1 });
  return made !== undefined && made.method === 'GET';
}

/**
 * The plain read without a key of an unknown item, on an item route methods are tried on: what
 * the refusal itself tells of existence.
 */
export function unknownItemRefusal(op: OperationModel, world: World): Probe[] {
  if (op.kind !== 'item' || !op.secured || entriesOn('method', op, world).length === 0) return [];
  const request = world.request(op, { id: world.unknownId });
  return request ? [{ request, phase: 2 }] : [];
}
