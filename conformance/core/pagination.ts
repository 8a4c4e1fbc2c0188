/**
 * How an operation pages, as the suite reads it (D-PAGINATION-DECLARED): the spec's one reading of
 * `x-pagination` or of the common shape (`spec/pagination.ts`), as dotted paths of the success
 * body, and the line a run prints for an inferred one. Also which array `limit` bounds on any
 * operation, a collection's or an item's.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { OpenApiDocument, Operation } from '../../spec/contract.ts';
import { isObject } from '../../spec/json-value.ts';
import { PaginationError, paginationOf as readPagination } from '../../spec/pagination.ts';
import { propertyNames, propertyOf, successSchema, typeOf } from './schemas.ts';

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
const PAGINATION_EXTENSION = 'x-pagination';

/**
 * How an operation pages: declared, inferred, or undefined when it does not page. The spec's own
 * reader (`spec/pagination.ts`, which the reference server serves pages by) decides; this gives its
 * reading as dotted paths of the success body. A declaration that names no query parameter or no
 * array of the success body is an error saying which operation.
 */
export function paginationOf(doc: OpenApiDocument, operation: Operation): Pagination | undefined {
  try {
    const read = readPagination(doc, operation);
    if (!read) return undefined;
    return {
      items: read.items.join('.'),
      cursor: read.cursor,
      next: read.next.join('.'),
      source: read.declared ? 'declared' : 'inferred',
    };
  } catch (error) {
    if (!(error instanceof PaginationError)) throw error;
    throw new Error(`${operation.operationId} (${operation.method} ${operation.path}) ${error.message}`, {
      cause: error,
    });
  }
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
