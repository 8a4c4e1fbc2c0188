/**
 * What the spec pins of an answer, and nothing more: two answers to the same query are compared by
 * it alone. The documented fields of the body (a request id, a timestamp or any field the spec under
 * test does not name never makes two answers differ); a collection's items by id, each by its
 * documented fields; and which items a page holds only where the spec fixes it: a page that holds
 * fewer items than its `limit` holds them all, but of a full page the spec fixes neither the order
 * nor which items beyond the `limit` it keeps, unless the operation declares an order
 * (`x-order`, read from the spec under test).
 */
import { createHash } from 'node:crypto';
import type { OpenAPIV3_1 } from 'openapi-types';
import { resolveRef } from '../../spec/contract.ts';
import { isObject } from '../../spec/json-value.ts';
import { dataOf } from '../core/answers.ts';
import type { Observation } from '../core/observation.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import type { Probe } from '../core/rule.ts';
import type { Exchange, ResponseData } from '../core/exchange.ts';
import { canonical } from './auth-readings.ts';
import { limitAsked } from './pages.ts';

/** What of an answer two answers are compared on. */
export interface Pinned {
  /** A digest of the documented body (for a collection: of everything but its items). */
  digest: string;
  /** A collection's items: `id digest` (the digest of its documented fields, or '' when fields are not compared), in the order served. */
  items?: string[];
  /** Whether the page holds every item (fewer than its `limit`): then which items it holds is pinned. */
  complete?: boolean;
  /** Whether the spec declares the collection's order: then the order and the page's items are pinned. */
  ordered?: boolean;
}

const digestOf = (value: unknown) => createHash('sha256').update(canonical(value)).digest('hex').slice(0, 16);

/** The schema of an operation's answer body with this status (`default` when the status has none). */
function answerSchema(spec: SpecModel, op: OperationModel, status: number): unknown {
  const responses = op.definition.responses ?? {};
  const response = responses[String(status)] ?? responses.default;
  if (!response) return undefined;
  const media = resolveRef<OpenAPIV3_1.ResponseObject>(spec.doc, response).content?.['application/json'];
  return media?.schema;
}

/** Every property a schema declares, through `$ref`, `allOf`, `oneOf` and `anyOf`. */
function propertiesOf(spec: SpecModel, node: unknown, depth = 0): Map<string, unknown> | undefined {
  if (depth > 8 || !isObject(node)) return undefined;
  const schema = resolveRef<OpenAPIV3_1.SchemaObject>(spec.doc, node as OpenAPIV3_1.SchemaObject);
  const parts = [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
  let found: Map<string, unknown> | undefined = schema.properties
    ? new Map(Object.entries(schema.properties))
    : undefined;
  for (const part of parts) {
    const more = propertiesOf(spec, part, depth + 1);
    if (!more) continue;
    found ??= new Map();
    for (const [name, sub] of more) if (!found.has(name)) found.set(name, sub);
  }
  return found;
}

function itemsSchemaOf(spec: SpecModel, node: unknown): unknown {
  if (!isObject(node)) return undefined;
  const schema = resolveRef<OpenAPIV3_1.SchemaObject>(spec.doc, node as OpenAPIV3_1.SchemaObject);
  return (schema as { items?: unknown }).items;
}

/**
 * A value with only what its schema documents, at every depth: an object keeps the properties its
 * schema declares (an object whose schema declares none, a map, is kept whole); an array, each
 * element by its items' schema; anything else as it is.
 */
function documentedPart(spec: SpecModel, node: unknown, value: unknown, depth = 0): unknown {
  if (node === undefined || depth > 16) return value;
  if (Array.isArray(value)) {
    const items = itemsSchemaOf(spec, node);
    return value.map((element) => documentedPart(spec, items, element, depth + 1));
  }
  if (!isObject(value)) return value;
  const properties = propertiesOf(spec, node);
  if (!properties) return value;
  const kept: Record<string, unknown> = {};
  for (const [name, sub] of properties) {
    if (name in value) kept[name] = documentedPart(spec, sub, value[name], depth + 1);
  }
  return kept;
}

/** The documented part of an answer's body, by the schema of its operation and status. */
export function documentedBody(
  spec: SpecModel,
  op: OperationModel | undefined,
  response: ResponseData,
): unknown {
  if (!op) return response.json;
  return documentedPart(spec, answerSchema(spec, op, response.status), response.json);
}

/** Whether the spec under test declares the order of a collection's items (`x-order` on its operation). */
const declaresOrder = (op: OperationModel): boolean =>
  (op.definition as { 'x-order'?: unknown })['x-order'] !== undefined;

/**
 * What the spec pins of an answer. `fields: false` compares a collection's items by id alone (the key
 * matrix: which items, not their fields, which may change between two requests).
 */
export function pinnedOf(
  spec: SpecModel,
  obs: Pick<Observation, 'op' | 'query' | 'exchange'>,
  options: { fields?: boolean } = {},
): Pinned {
  const response = obs.exchange.response as ResponseData;
  const body = documentedBody(spec, obs.op, response);
  const data = dataOf(response);
  const op = obs.op;
  if (!op || op.kind !== 'collection' || !Array.isArray(data) || !isObject(body) || !Array.isArray(body.data))
    return { digest: digestOf(body) };
  const documented = body.data as unknown[];
  const items = documented.map((item) => {
    const id = isObject(item) && typeof item.id === 'string' ? item.id : canonical(item);
    return `${id} ${options.fields === false ? '' : digestOf(item)}`;
  });
  // The envelope around the items: `meta.count` follows the page's size, compared with the items.
  const { data: _items, meta: _meta, ...rest } = body;
  const asked = limitAsked(obs);
  const limit = asked.kind === 'valid' ? asked.n : op.limit?.default;
  return {
    digest: digestOf(rest),
    items,
    complete: limit === undefined || data.length < limit,
    ordered: declaresOrder(op),
  };
}

const idPart = (entry: string) => entry.slice(0, entry.lastIndexOf(' '));

/** Why two answers to the same query differ in what the spec pins, or undefined when they do not. */
export function pinnedDifference(a: Pinned, b: Pinned): string | undefined {
  if (a.digest !== b.digest) return a.items ? 'a different envelope' : 'different data';
  if (!a.items || !b.items) return a.items === b.items ? undefined : 'different data';
  const fieldsOf = new Map(a.items.map((entry) => [idPart(entry), entry]));
  for (const entry of b.items) {
    const other = fieldsOf.get(idPart(entry));
    if (other !== undefined && other !== entry)
      return `item ${idPart(entry)} differs in its documented fields`;
  }
  const ids = (items: string[]) => items.map(idPart);
  if (a.ordered && b.ordered) {
    return ids(a.items).join('\n') === ids(b.items).join('\n') ? undefined : 'other items, or another order';
  }
  const missing = (whole: string[], page: string[]) => {
    const held = new Set(ids(whole));
    return ids(page).find((id) => !held.has(id));
  };
  // A page that holds every item holds every item the other lists; two such pages hold the same.
  if (a.complete) {
    const extra = missing(a.items, b.items);
    if (extra !== undefined) return `item ${extra} listed in one answer only`;
  }
  if (b.complete) {
    const extra = missing(b.items, a.items);
    if (extra !== undefined) return `item ${extra} listed in one answer only`;
  }
  return undefined;
}

/** What of an exchange `pinnedOf` reads, for an answer a live run has just received. */
const answeredAs = (op: OperationModel, exchange: Exchange) => ({
  op,
  exchange,
  query: new URL(exchange.request.url).searchParams,
});

/**
 * Two requests whose answers a rule compares, asked again together when their answers differ in
 * what the spec pins: data that changes between two requests (a stop's status moving on) differs
 * once and agrees when asked again close together; a real difference repeats. Each probe remembers
 * its answer; the one answered second compares and asks both again, in the phase after.
 */
export function askedAgainWhenDifferent(
  spec: SpecModel,
  op: OperationModel,
  first: Probe,
  second: Probe,
): Probe[] {
  const answers: (Exchange | undefined)[] = [undefined, undefined];
  const again = (probe: Probe) => ({ ...probe.request, again: (probe.request.again ?? 0) + 1 });
  const compared = (mine: 0 | 1) => (answered: Exchange) => {
    answers[mine] = answered;
    const [a, b] = answers;
    if (!a || !b || a.response?.status !== 200 || b.response?.status !== 200) return undefined;
    const difference = pinnedDifference(pinnedOf(spec, answeredAs(op, a)), pinnedOf(spec, answeredAs(op, b)));
    return difference === undefined ? undefined : [again(first), again(second)];
  };
  return [
    { ...first, followUp: compared(0) },
    { ...second, followUp: compared(1) },
  ];
}
