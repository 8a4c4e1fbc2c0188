/**
 * What the reference server serves: the live GET operations of a spec, each a collection or an
 * item of one, with the scopes, `limit` bounds and pagination the spec gives it. The project's own
 * spec is described here from `spec/facts.ts` (no YAML parse at start-up); any other spec
 * (`--spec FILE`) is read by `served-spec.ts`.
 */
import { LIMIT, WALK_PATH_TEMPLATE, WALKS_PATH, WALKS_READ_SCOPE } from '../spec/facts.ts';
import type { Pagination } from '../spec/pagination.ts';
import { isObject } from '../spec/json-value.ts';
import type { LimitBounds } from './limit.ts';

export interface ServedOperation {
  operationId: string;
  /** The path template, `/api/v1/lists/{id}`. */
  path: string;
  /** `collection`: its `data` is an array; `item`: one item, named by the last path segment. */
  kind: 'collection' | 'item';
  /** Every scope a key needs (`x-required-scopes`). */
  scopes: readonly string[];
  /** The bounds of its `limit` query parameter, when it has one. */
  limit?: LimitBounds;
  /** The path from the body of the array `limit` bounds (`['data']`, `['data', 'voters']`). */
  paged?: readonly string[];
  /** How it pages with a cursor, when it does. */
  pagination?: Pagination;
  /** For an item: the collection operation it is an item of, when the spec serves one. */
  collection?: string;
  /** Whether its success envelope carries `meta` (`meta.count` for a list). */
  counted: boolean;
}

/** The walks operations of the project's spec: the canvassing day serves these. */
export const WALK_OPERATION_PATHS: ReadonlySet<string> = new Set([WALKS_PATH, WALK_PATH_TEMPLATE]);

/** The live operations of `spec/openapi.yaml`, as its facts state them. */
export const PROJECT_OPERATIONS: readonly ServedOperation[] = Object.freeze([
  {
    operationId: 'listWalks',
    path: WALKS_PATH,
    kind: 'collection',
    scopes: [WALKS_READ_SCOPE],
    limit: LIMIT,
    paged: ['data'],
    counted: true,
  },
  {
    operationId: 'getWalk',
    path: WALK_PATH_TEMPLATE,
    kind: 'item',
    scopes: [WALKS_READ_SCOPE],
    collection: 'listWalks',
    counted: false,
  },
]);

/** Every scope the operations need, each once, in order. */
export function scopesOf(operations: readonly ServedOperation[]): string[] {
  return [...new Set(operations.flatMap((op) => op.scopes))];
}

/**
 * The success envelope of one page: `data` (a page of a list, or an item with a page of its paged
 * array), `meta.count` when the spec has `meta`, and the next cursor where the spec puts it
 * (null on the last page).
 */
export function envelopeOf(
  op: ServedOperation,
  data: unknown,
  page: readonly unknown[],
  next: string | null = null,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ok: true, data: isObject(data) ? { ...data } : data };
  if (op.counted) body.meta = { count: page.length };
  if (op.pagination) setAt(body, op.pagination.next, next);
  return body;
}

function setAt(body: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = body;
  path.forEach((name, index) => {
    if (index === path.length - 1) {
      node[name] = value;
      return;
    }
    const child = node[name];
    node = isObject(child) ? child : (node[name] = {});
  });
}
