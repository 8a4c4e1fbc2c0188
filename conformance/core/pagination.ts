/**
 * How an operation pages, read from the spec once (D-PAGINATION-DECLARED): the `x-pagination`
 * extension of the operation when it has one (`{ items: data, cursor: cursor, next: next_cursor }`),
 * otherwise the common shape inferred, and said so: a cursor-named query parameter (`cursor`,
 * `page_token`, `after`) beside `limit`, and a next-cursor field (`next_cursor`, `next`,
 * `next_page_token`) in the success body, at its top level or beside the paged array in `data`.
 * Also which array `limit` bounds on any operation, a collection's or an item's. It reads the spec
 * document alone (nothing of the suite), so any reader of a spec can share it.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { OpenApiDocument, Operation } from '../../spec/contract.ts';
import { isObject } from '../../spec/json-value.ts';
import { propertyNames, propertyOf, schemaAt, successSchema, typeOf } from './schemas.ts';

/** How one operation pages: every path is a dotted path in the success body. */
export interface Pagination {
  /** The array a page holds, the one `limit` bounds: `data`, `data.items`. */
  items: string;
  /** The query parameter that carries a cursor: `cursor`. */
  cursor: string;
  /** Where the answer gives the next page's cursor (absent, null or empty on the last page): `next_cursor`. */
  next: string;
  /** Written in the spec (`x-pagination`), or inferred from the common shape. */
  source: 'declared' | 'inferred';
}

/** The extension an operation declares its pagination with. */
export const PAGINATION_EXTENSION = 'x-pagination';
/** Cursor parameter names the common shape uses. */
export const CURSOR_NAMES = ['cursor', 'page_token', 'after'] as const;
/** Next-cursor field names the common shape uses. */
export const NEXT_NAMES = ['next_cursor', 'next', 'next_page_token'] as const;
/** The page-size parameter the common shape pairs a cursor with. */
const LIMIT_NAME = 'limit';

type Parameter = Pick<OpenAPIV3_1.ParameterObject, 'name' | 'in'>;

/**
 * How an operation pages: declared, inferred, or undefined when it does not page. A declaration
 * that names no query parameter or no array of the success body is an error saying which.
 */
export function paginationOf(
  doc: OpenApiDocument,
  operation: Operation,
  parameters: readonly Parameter[],
): Pagination | undefined {
  const query = parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const body = successSchema(doc, operation);
  const declared = (operation.definition as Record<string, unknown>)[PAGINATION_EXTENSION];
  if (declared !== undefined) return declaredPagination(doc, operation, declared, query, body);
  return inferredPagination(doc, query, body);
}

function declaredPagination(
  doc: OpenApiDocument,
  operation: Operation,
  declared: unknown,
  query: readonly string[],
  body: OpenAPIV3_1.SchemaObject | undefined,
): Pagination {
  const where = `${operation.operationId} (${operation.method} ${operation.path}) ${PAGINATION_EXTENSION}`;
  const field = (name: 'items' | 'cursor' | 'next') => {
    const value = isObject(declared) ? declared[name] : undefined;
    if (typeof value !== 'string' || value === '') throw new Error(`${where} has no ${name} (a string)`);
    return value;
  };
  const [items, cursor, next] = [field('items'), field('cursor'), field('next')];
  if (!query.includes(cursor))
    throw new Error(`${where} names cursor ${cursor}, which is no query parameter of it`);
  const array = schemaAt(doc, body, items);
  if (!array || typeOf(array, doc) !== 'array')
    throw new Error(`${where} names items ${items}, which is no array of its 200 body`);
  if (!schemaAt(doc, body, next))
    throw new Error(`${where} names next ${next}, which is no field of its 200 body`);
  return { items, cursor, next, source: 'declared' };
}

/** The common shape: a cursor-named parameter beside `limit`, a next-cursor field at the top or in `data`. */
function inferredPagination(
  doc: OpenApiDocument,
  query: readonly string[],
  body: OpenAPIV3_1.SchemaObject | undefined,
): Pagination | undefined {
  const cursor = CURSOR_NAMES.find((name) => query.includes(name));
  if (!cursor || !query.includes(LIMIT_NAME) || !body) return undefined;
  const top = NEXT_NAMES.find((name) => propertyOf(doc, body, name));
  const items = arrayIn(doc, body);
  if (top && items) return { items, cursor, next: top, source: 'inferred' };
  const data = propertyOf(doc, body, 'data');
  const inData =
    data && typeOf(data, doc) === 'object'
      ? NEXT_NAMES.find((name) => propertyOf(doc, data, name))
      : undefined;
  const beside = data ? onlyArrayOf(doc, data) : undefined;
  if (inData && beside)
    return { items: `data.${beside}`, cursor, next: `data.${inData}`, source: 'inferred' };
  return undefined;
}

/** The paged array of a success body: `data` itself, or the one array property of an object `data`. */
function arrayIn(doc: OpenApiDocument, body: OpenAPIV3_1.SchemaObject): string | undefined {
  const data = propertyOf(doc, body, 'data');
  if (!data) return undefined;
  const type = typeOf(data, doc);
  if (type === 'array') return 'data';
  const only = type === 'object' ? onlyArrayOf(doc, data) : undefined;
  return only ? `data.${only}` : undefined;
}

/** The name of an object schema's one array property; undefined when it has none or several. */
function onlyArrayOf(doc: OpenApiDocument, schema: OpenAPIV3_1.SchemaObject): string | undefined {
  const arrays = propertyNames(doc, schema).filter((name) => {
    const property = propertyOf(doc, schema, name);
    return property !== undefined && typeOf(property, doc) === 'array';
  });
  return arrays.length === 1 ? arrays[0] : undefined;
}

/**
 * The array an operation's `limit` bounds, as the operation declares it: its pagination's items,
 * else `data` when it is an array (a collection), else the one array of an object `data` (an item
 * with a list inside, such as a saved list's voters). Undefined when `limit` bounds nothing the
 * body shows.
 */
export function limitedArrayOf(
  doc: OpenApiDocument,
  operation: Operation,
  pagination: Pagination | undefined,
): string | undefined {
  if (pagination) return pagination.items;
  const body = successSchema(doc, operation);
  return body ? arrayIn(doc, body) : undefined;
}

/** The value at a dotted path of a parsed body. */
export function valueAt(body: unknown, path: string): unknown {
  let node = body;
  for (const name of path.split('.')) node = isObject(node) ? node[name] : undefined;
  return node;
}

/** The cursor an answer gives for its next page; undefined on the last page (absent, null or empty). */
export function nextCursorOf(body: unknown, pagination: Pick<Pagination, 'next'>): string | undefined {
  const value = valueAt(body, pagination.next);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The line a run prints for an operation whose pagination it inferred; none for a declared one. */
export function inferenceLine(
  op: Pick<Operation, 'method' | 'path'>,
  pagination: Pagination,
): string | undefined {
  if (pagination.source !== 'inferred') return undefined;
  return (
    `conformance: ${op.method} ${op.path} pages by inference (no ${PAGINATION_EXTENSION}): ` +
    `cursor parameter ${pagination.cursor}, next cursor at ${pagination.next}, items at ${pagination.items}\n`
  );
}
