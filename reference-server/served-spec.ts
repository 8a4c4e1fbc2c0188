/**
 * `--spec FILE`: the live operations of another spec, read once at start-up, and the seeded data
 * of each resource the project has no generator for, made from its schema and held to it. A live
 * operation the server cannot serve (a method other than GET, a parameter style it does not read,
 * a required parameter it cannot fill, a schema it cannot draw data from) stops the start with one
 * line naming the operation and why (`UnservableSpec`).
 */
import { readFileSync } from 'node:fs';
import type { OpenAPIV3_1 } from 'openapi-types';
import { parse } from 'yaml';
import type { Dataset } from '../fixtures/index.ts';
import { dereferenced, SchemaDataError, seededId, seededValues } from '../fixtures/schema-data.ts';
import {
  createContractValidator,
  type OpenApiDocument,
  type Operation,
  operationsOf,
  resolveRef,
} from '../spec/contract.ts';
import { isObject } from '../spec/json-value.ts';
import { PaginationError, paginationOf, schemaAt, successSchema } from '../spec/pagination.ts';
import type { LimitBounds } from './limit.ts';
import { envelopeOf, type ServedOperation, WALK_OPERATION_PATHS } from './served-operations.ts';

/** Why a spec cannot be served, in one line. */
export class UnservableSpec extends Error {
  override name = 'UnservableSpec';
}

/** A spec read for serving: its live operations and the document they come from. */
export interface ServedSpec {
  path: string;
  doc: OpenApiDocument;
  operations: ServedOperation[];
}

/** Items per campaign of a resource drawn from its schema: the primary, the second, the empty campaign. */
const ITEMS_PER_CAMPAIGN = [30, 6, 0] as const;
/** Entries of an array an item pages through (a list's voters). */
const PAGED_ENTRIES = 45;
/** The parameter styles the server reads (OpenAPI's defaults). */
const STYLES: Record<string, string> = { path: 'simple', query: 'form', header: 'simple', cookie: 'form' };

export function loadServedSpec(path: string): ServedSpec {
  let doc: OpenApiDocument;
  try {
    doc = parse(readFileSync(path, 'utf8')) as OpenApiDocument;
  } catch (error) {
    throw new UnservableSpec(`--spec ${path} cannot be read: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!isObject(doc) || typeof doc.openapi !== 'string' || !/^3\.1\.\d+$/.test(doc.openapi)) {
    throw new UnservableSpec(`--spec ${path} is not an OpenAPI 3.1 document`);
  }
  const live = operationsOf(doc).filter(
    (op) => (op.definition as Record<string, unknown>)['x-status'] !== 'planned',
  );
  const operations = live.map((op) => servedOperationOf(doc, op, path));
  for (const op of operations) {
    if (op.kind !== 'item') continue;
    const parent = op.path.replace(/\/\{[^}]+\}$/, '');
    const collection = operations.find((c) => c.kind === 'collection' && c.path === parent);
    if (collection) op.collection = collection.operationId;
  }
  if (operations.length === 0) throw new UnservableSpec(`--spec ${path} has no live operation to serve`);
  return { path, doc, operations };
}

function servedOperationOf(doc: OpenApiDocument, op: Operation, file: string): ServedOperation {
  const refuse = (why: string) =>
    new UnservableSpec(
      `--spec ${file}: ${op.method} ${op.path} (${op.operationId}) cannot be served: ${why}`,
    );
  if (op.method !== 'GET') throw refuse('the server answers GET operations only (the API is read-only)');
  const pathItem = doc.paths?.[op.path] as OpenAPIV3_1.PathItemObject | undefined;
  const parameters = [...(pathItem?.parameters ?? []), ...(op.definition.parameters ?? [])].map((p) =>
    resolveRef<OpenAPIV3_1.ParameterObject>(doc, p),
  );
  const pagination = paginationOrRefusal(doc, op, refuse);
  for (const parameter of parameters) {
    const style = parameter.style ?? STYLES[parameter.in];
    if (style !== STYLES[parameter.in]) {
      throw refuse(`parameter ${parameter.name} has style ${String(style)}, which the server does not read`);
    }
    const filled = parameter.in === 'path' || ['limit', pagination?.cursor].includes(parameter.name);
    if (parameter.required && !filled) throw refuse(`required ${parameter.in} parameter ${parameter.name}`);
  }
  const pathParameters = [...op.path.matchAll(/\{([^}]+)\}/g)];
  const body = successSchema(doc, op);
  const data = body && schemaAt(doc, body, ['data']);
  const isArray = data !== undefined && (data.type === 'array' || 'items' in data);
  const itemShaped = pathParameters.length === 1 && /\/\{[^}]+\}$/.test(op.path) && !isArray;
  if (!data || !(isArray ? pathParameters.length === 0 : itemShaped)) {
    throw refuse(
      'it is neither a collection (data an array, no path parameter) nor an item (one id at the end)',
    );
  }
  if (op.requiredScopes.length === 0) throw refuse('it names no scope in x-required-scopes');
  const limit = limitOf(parameters, refuse);
  const kind = isArray ? 'collection' : 'item';
  const paged = pagination?.items ?? (limit ? (isArray ? ['data'] : singleArray(doc, data)) : undefined);
  if (limit && !paged) throw refuse('limit bounds no array of its data');
  return {
    operationId: op.operationId,
    path: op.path,
    kind,
    scopes: op.requiredScopes,
    ...(limit ? { limit } : {}),
    ...(paged ? { paged } : {}),
    ...(pagination ? { pagination } : {}),
    counted: schemaAt(doc, body, ['meta']) !== undefined,
  };
}

function paginationOrRefusal(doc: OpenApiDocument, op: Operation, refuse: (why: string) => Error) {
  try {
    return paginationOf(doc, op);
  } catch (error) {
    if (error instanceof PaginationError) throw refuse(error.message);
    throw error;
  }
}

function limitOf(
  parameters: OpenAPIV3_1.ParameterObject[],
  refuse: (why: string) => Error,
): LimitBounds | undefined {
  const schema = parameters.find((p) => p.in === 'query' && p.name === 'limit')?.schema as
    OpenAPIV3_1.SchemaObject | undefined;
  if (!schema) return undefined;
  const { minimum = 1, maximum } = schema;
  if (schema.type !== 'integer' || typeof maximum !== 'number') {
    throw refuse('its limit is not an integer with a maximum');
  }
  return { minimum, maximum, default: typeof schema.default === 'number' ? schema.default : maximum };
}

function singleArray(doc: OpenApiDocument, data: OpenAPIV3_1.SchemaObject): string[] | undefined {
  const arrays = Object.keys(allProperties(doc, data)).filter((name) => {
    const property = schemaAt(doc, data, [name]);
    return property?.type === 'array' || (property !== undefined && 'items' in property);
  });
  return arrays.length === 1 ? ['data', arrays[0] as string] : undefined;
}

function allProperties(doc: OpenApiDocument, schema: OpenAPIV3_1.SchemaObject): Record<string, unknown> {
  const own = resolveRef<OpenAPIV3_1.SchemaObject>(doc, schema);
  const merged: Record<string, unknown> = {};
  for (const part of own.allOf ?? [])
    Object.assign(merged, allProperties(doc, part as OpenAPIV3_1.SchemaObject));
  return { ...merged, ...(own.properties ?? {}) };
}

/** The data each operation without a generator serves, per campaign. */
export interface SchemaResources {
  /** A collection's items, in the order listed. */
  list(operationId: string, campaignId: string): readonly Record<string, unknown>[] | undefined;
  /** An item's data by id, in its campaign only. */
  item(operationId: string, campaignId: string, id: string): Record<string, unknown> | undefined;
  /** An example id of the primary campaign, for the partner files. */
  exampleId(operationId: string): string | undefined;
}

type Item = Record<string, unknown>;
/** Per operation, per campaign. */
type Lists = Map<string, Map<string, Item[]>>;
type Items = Map<string, Map<string, Map<string, Item>>>;

/**
 * Seeded data for every served operation but the walks', drawn from its schema per campaign, and
 * every answer it makes held to the spec's schema before the server starts.
 */
export function schemaResources(spec: ServedSpec, dataset: Dataset): SchemaResources {
  const own = spec.operations.filter((op) => !WALK_OPERATION_PATHS.has(op.path));
  const lists: Lists = new Map();
  const items: Items = new Map();
  for (const op of own.filter((o) => o.kind === 'collection')) {
    const perCampaign = new Map<string, Item[]>();
    dataset.campaigns.forEach((campaign, at) => {
      const stream = `${op.operationId}\n${campaign.id}`;
      const drawn = drawAt(spec, op, ['data', '[]'], ITEMS_PER_CAMPAIGN[at] ?? 0, dataset.seed, stream);
      perCampaign.set(campaign.id, withIds(drawn, dataset.seed, stream));
    });
    lists.set(op.operationId, perCampaign);
  }
  for (const op of own.filter((o) => o.kind === 'item')) {
    const perCampaign = new Map<string, Map<string, Item>>();
    dataset.campaigns.forEach((campaign, at) => {
      const listed = op.collection === undefined ? undefined : lists.get(op.collection)?.get(campaign.id);
      perCampaign.set(campaign.id, detailsOf(spec, op, dataset.seed, campaign.id, listed ?? at));
    });
    items.set(op.operationId, perCampaign);
  }
  holdToSchema(spec, own, lists, items);
  const primary = dataset.campaigns[0]?.id ?? '';
  return {
    list: (operationId, campaignId) => lists.get(operationId)?.get(campaignId),
    item: (operationId, campaignId, id) => items.get(operationId)?.get(campaignId)?.get(id),
    exampleId(operationId) {
      const first = items.has(operationId)
        ? [...(items.get(operationId)?.get(primary)?.keys() ?? [])][0]
        : lists.get(operationId)?.get(primary)?.[0]?.id;
      return first === undefined ? undefined : String(first);
    },
  };
}

/**
 * The details of a campaign's items by id: each its collection's summary (or, without a listed
 * collection, drawn for the campaign's place) over the rest drawn from the item's schema, with its
 * paged array drawn whole.
 */
function detailsOf(
  spec: ServedSpec,
  op: ServedOperation,
  seed: number,
  campaignId: string,
  listed: Item[] | number,
): Map<string, Item> {
  const stream = `${op.operationId}\n${campaignId}`;
  const summaries =
    typeof listed === 'number'
      ? withIds(drawAt(spec, op, ['data'], ITEMS_PER_CAMPAIGN[listed] ?? 0, seed, stream), seed, stream)
      : listed;
  const drawn = drawAt(spec, op, ['data'], summaries.length, seed, `${stream}\ndetail`);
  const property = op.paged?.length === 2 ? (op.paged[1] as string) : undefined;
  const found = new Map<string, Item>();
  summaries.forEach((summary, index) => {
    const detail: Item = { ...(isObject(drawn[index]) ? drawn[index] : {}), ...summary };
    if (property !== undefined) {
      const entries = `${stream}\n${String(summary.id)}`;
      const paged = drawAt(spec, op, [...(op.paged ?? []), '[]'], PAGED_ENTRIES, seed, entries);
      detail[property] = withIds(paged, seed, entries);
    }
    found.set(String(summary.id), detail);
  });
  return found;
}

/** `count` values of the schema at `where` in the success body (`[]`: an array's items). */
function drawAt(
  spec: ServedSpec,
  op: ServedOperation,
  where: readonly string[],
  count: number,
  seed: number,
  stream: string,
): unknown[] {
  const label = `${where.join('.').replaceAll('.[]', '[]')}`;
  try {
    let schema: unknown = successSchema(spec.doc, operation(spec, op));
    for (const step of where) {
      const node = isObject(schema) ? resolveRef<Item>(spec.doc, schema) : {};
      schema = step === '[]' ? node.items : schemaAt(spec.doc, node, [step]);
    }
    return seededValues(dereferenced(spec.doc, schema ?? {}, label), count, seed, stream);
  } catch (error) {
    if (error instanceof SchemaDataError) throw unservable(spec, op, error.message);
    throw error;
  }
}

/** The items with ids of their own: a UUID drawn from the seed for a string id, a count for a number. */
function withIds(values: unknown[], seed: number, stream: string): Item[] {
  return values.map((value, index) => {
    const item = isObject(value) ? value : {};
    if ('id' in item) item.id = typeof item.id === 'number' ? index + 1 : seededId(seed, stream, index);
    return item;
  });
}

function operation(spec: ServedSpec, op: ServedOperation): Operation {
  const found = operationsOf(spec.doc).find((o) => o.operationId === op.operationId);
  if (!found) throw new Error(`the served spec has no operation ${op.operationId}`);
  return found;
}

function unservable(spec: ServedSpec, op: ServedOperation, why: string): UnservableSpec {
  return new UnservableSpec(
    `--spec ${spec.path}: GET ${op.path} (${op.operationId}) cannot be served: ${why}`,
  );
}

/** Every list whole and every item, in the envelope, valid against the spec, or the start stops. */
function holdToSchema(spec: ServedSpec, own: readonly ServedOperation[], lists: Lists, items: Items): void {
  const validator = createContractValidator(spec.doc);
  for (const op of own) {
    const bodies =
      op.kind === 'collection'
        ? [...(lists.get(op.operationId)?.values() ?? [])].map((data) => envelopeOf(op, data, data))
        : [...(items.get(op.operationId)?.values() ?? [])].flatMap((found) =>
            [...found.values()].map((data) => envelopeOf(op, data, pagedOf(op, data))),
          );
    for (const body of bodies) {
      const result = validator.validateResponse(op.operationId, 200, body);
      if (!result.valid) {
        throw unservable(spec, op, `its seeded data does not match its schema (${result.errors[0] ?? ''})`);
      }
    }
  }
}

function pagedOf(op: ServedOperation, data: Record<string, unknown>): unknown[] {
  const value = op.paged && op.paged.length > 1 ? data[op.paged[1] as string] : undefined;
  return Array.isArray(value) ? value : [];
}
