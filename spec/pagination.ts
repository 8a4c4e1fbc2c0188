/**
 * How an operation pages (D-PAGINATION-DECLARED): what its `x-pagination` extension declares, or,
 * for a spec without it, what the common shape lets a reader infer. Read by the reference server,
 * which serves the pages, and by whatever judges them, from the same document.
 *
 *   x-pagination:
 *     items: voters              # the array in `data` that `limit` bounds ('' or '/': data itself)
 *     cursor: cursor             # the query parameter that carries the cursor
 *     next: data.next_cursor     # where the answer carries the next cursor (a path from the body)
 *
 * Paths are property paths (`data.next_cursor`) or JSON pointers (`/data/next_cursor`).
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { type OpenApiDocument, type Operation, resolveRef } from './contract.ts';
import { isObject } from './json-value.ts';

/** The query parameter names a cursor goes by, when no extension says. */
const INFERRED_CURSOR_NAMES = ['cursor', 'page_token', 'after'] as const;
/** The answer's field names a next cursor goes by, when no extension says. */
const INFERRED_NEXT_NAMES = ['next_cursor', 'next', 'next_page_token'] as const;

export interface Pagination {
  /** The path of the paged array from the body: `['data']` or `['data', 'voters']`. */
  items: string[];
  /** The query parameter carrying the cursor. */
  cursor: string;
  /** The path of the next cursor from the body: `['meta', 'next_cursor']`. */
  next: string[];
  /** Whether the spec declared it (`x-pagination`) or it was inferred from the common shape. */
  declared: boolean;
}

/** An `x-pagination` that names what the document does not have. */
export class PaginationError extends Error {
  override name = 'PaginationError';
}

type Schema = OpenAPIV3_1.SchemaObject;

/**
 * The pagination of an operation, or undefined when it declares none and none can be inferred.
 * Throws a `PaginationError` for a declaration that does not fit the operation.
 */
export function paginationOf(doc: OpenApiDocument, operation: Operation): Pagination | undefined {
  const declared = (operation.definition as Record<string, unknown>)['x-pagination'];
  const parameters = queryParameterNames(doc, operation);
  const body = successSchema(doc, operation);
  if (declared !== undefined) return declaredPagination(doc, declared, parameters, body);
  return inferredPagination(doc, parameters, body);
}

/** A property path or a JSON pointer as the segments it names. */
function segmentsOf(path: string): string[] {
  if (path === '' || path === '/') return [];
  if (path.startsWith('/')) {
    return path
      .slice(1)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  }
  return path.split('.');
}

function declaredPagination(
  doc: OpenApiDocument,
  declared: unknown,
  parameters: string[],
  body: Schema | undefined,
): Pagination {
  if (!isObject(declared)) throw new PaginationError('x-pagination must be an object');
  const { items, cursor, next } = declared as Record<string, unknown>;
  if (typeof items !== 'string' || typeof cursor !== 'string' || typeof next !== 'string') {
    throw new PaginationError('x-pagination needs the strings items, cursor and next');
  }
  if (!parameters.includes(cursor)) {
    throw new PaginationError(`x-pagination names the cursor ${cursor}, which is no query parameter`);
  }
  const itemsPath = ['data', ...segmentsOf(items)];
  const array = body && schemaAt(doc, body, itemsPath);
  if (!array || typeOf(doc, array) !== 'array') {
    throw new PaginationError(`x-pagination items ${JSON.stringify(items)} is no array in data`);
  }
  const nextPath = segmentsOf(next);
  if (!body || !schemaAt(doc, body, nextPath)) {
    throw new PaginationError(`x-pagination next ${JSON.stringify(next)} is no field of the answer`);
  }
  return { items: itemsPath, cursor, next: nextPath, declared: true };
}

function inferredPagination(
  doc: OpenApiDocument,
  parameters: string[],
  body: Schema | undefined,
): Pagination | undefined {
  const cursor = INFERRED_CURSOR_NAMES.find((name) => parameters.includes(name));
  if (!cursor || !parameters.includes('limit') || !body) return undefined;
  const data = schemaAt(doc, body, ['data']);
  if (!data) return undefined;
  const items = typeOf(doc, data) === 'array' ? ['data'] : singleArrayIn(doc, data);
  if (!items) return undefined;
  // The next cursor at the top level of the answer, or beside the paged array in `data`.
  const beside = items.slice(0, -1);
  for (const where of [[], ...(beside.length > 0 ? [beside] : [])]) {
    const name = INFERRED_NEXT_NAMES.find((n) => schemaAt(doc, body, [...where, n]));
    if (name) return { items, cursor, next: [...where, name], declared: false };
  }
  return undefined;
}

/** `['data', name]` of the one array property of an object `data`, if it has exactly one. */
function singleArrayIn(doc: OpenApiDocument, data: Schema): string[] | undefined {
  const arrays = Object.keys(propertiesOf(doc, data)).filter((name) => {
    const property = schemaAt(doc, data, [name]);
    return property !== undefined && typeOf(doc, property) === 'array';
  });
  return arrays.length === 1 ? ['data', arrays[0] as string] : undefined;
}

function queryParameterNames(doc: OpenApiDocument, operation: Operation): string[] {
  const pathItem = doc.paths?.[operation.path] as OpenAPIV3_1.PathItemObject | undefined;
  return [...(pathItem?.parameters ?? []), ...(operation.definition.parameters ?? [])]
    .map((p) => resolveRef<OpenAPIV3_1.ParameterObject>(doc, p))
    .filter((p) => p.in === 'query')
    .map((p) => p.name);
}

/** The schema of the documented 200 JSON body. */
export function successSchema(doc: OpenApiDocument, operation: Operation): Schema | undefined {
  const response = operation.definition.responses?.['200'];
  if (!response) return undefined;
  const media = resolveRef<OpenAPIV3_1.ResponseObject>(doc, response).content?.['application/json'];
  return media?.schema ? resolveRef<Schema>(doc, media.schema) : undefined;
}

/** The schema of the property at `path` below `schema`, through `$ref` and `allOf`. */
export function schemaAt(doc: OpenApiDocument, schema: Schema, path: readonly string[]): Schema | undefined {
  let current: Schema | undefined = resolveRef<Schema>(doc, schema);
  for (const name of path) {
    if (!current) return undefined;
    const property: Schema | OpenAPIV3_1.ReferenceObject | undefined = propertiesOf(doc, current)[name];
    current = property ? resolveRef<Schema>(doc, property) : undefined;
  }
  return current;
}

function propertiesOf(
  doc: OpenApiDocument,
  schema: Schema,
  depth = 0,
): Record<string, Schema | OpenAPIV3_1.ReferenceObject> {
  if (depth > 8) return {};
  const own = resolveRef<Schema>(doc, schema);
  const merged: Record<string, Schema | OpenAPIV3_1.ReferenceObject> = {};
  for (const part of own.allOf ?? []) Object.assign(merged, propertiesOf(doc, part as Schema, depth + 1));
  return { ...merged, ...(own.properties ?? {}) };
}

function typeOf(doc: OpenApiDocument, schema: Schema, depth = 0): string | undefined {
  const own = resolveRef<Schema>(doc, schema);
  const type = own.type as string | string[] | undefined;
  if (Array.isArray(type)) return type.find((t) => t !== 'null');
  if (type) return type;
  if ('items' in own) return 'array';
  if ('properties' in own) return 'object';
  if (depth > 8) return undefined;
  for (const part of own.allOf ?? []) {
    const found = typeOf(doc, part as Schema, depth + 1);
    if (found) return found;
  }
  return undefined;
}
