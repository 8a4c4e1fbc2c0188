/**
 * The schema of one item, read from the spec under test: an element of a collection's `data`, or
 * an item operation's `data`. The fields a collection's summary and its item's detail both carry
 * come from the two schemas, never from a list written here.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { resolveRef } from '../../spec/contract.ts';
import { isObject } from '../../spec/json-value.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import { successProperty } from '../core/spec-model.ts';

const REF = /^#\/components\/schemas\/([^/]+)$/;

export interface ItemSchema {
  schema: OpenAPIV3_1.SchemaObject;
  /** The component the schema is (`WalkSummary`), when `data` names one by `$ref`. */
  name?: string;
}

/** The item schemas of a spec's operations, read once: rules ask for one with every answer. */
const itemSchemas = new WeakMap<SpecModel, Map<OperationModel, ItemSchema | undefined>>();

/** One item's schema: `data.items` of a collection, `data` of an item operation. */
export function itemSchemaOf(spec: SpecModel, op: OperationModel): ItemSchema | undefined {
  let known = itemSchemas.get(spec);
  if (!known) {
    known = new Map();
    itemSchemas.set(spec, known);
  }
  if (!known.has(op)) known.set(op, readItemSchema(spec, op));
  return known.get(op);
}

function readItemSchema(spec: SpecModel, op: OperationModel): ItemSchema | undefined {
  const data = successProperty(spec.doc, op, 'data');
  if (!data) return undefined;
  const node = op.kind === 'collection' ? (data as { items?: unknown }).items : data;
  if (!isObject(node)) return undefined;
  const ref = typeof node.$ref === 'string' ? REF.exec(node.$ref)?.[1] : undefined;
  const schema = resolveRef<OpenAPIV3_1.SchemaObject>(spec.doc, node as OpenAPIV3_1.SchemaObject);
  return ref ? { schema, name: ref } : { schema };
}

/** The property names of a schema, through `$ref` and `allOf`. */
function fieldsOf(spec: SpecModel, node: unknown, depth = 0): string[] {
  if (depth > 8 || !isObject(node)) return [];
  const schema = resolveRef<OpenAPIV3_1.SchemaObject>(spec.doc, node as OpenAPIV3_1.SchemaObject);
  const own = Object.keys(schema.properties ?? {});
  return [...new Set([...own, ...(schema.allOf ?? []).flatMap((part) => fieldsOf(spec, part, depth + 1))])];
}

const shared = new WeakMap<SpecModel, Map<string, string[]>>();

/** The fields an item operation's detail shares with its collection's summary (`id`, `name`). */
export function sharedFieldsOf(spec: SpecModel, item: OperationModel): string[] {
  const known = shared.get(spec) ?? new Map<string, string[]>();
  shared.set(spec, known);
  let fields = known.get(item.operationId);
  if (!fields) {
    const summary = item.collection ? itemSchemaOf(spec, item.collection) : undefined;
    const detail = itemSchemaOf(spec, item);
    const inDetail = new Set(detail ? fieldsOf(spec, detail.schema) : []);
    fields = summary ? fieldsOf(spec, summary.schema).filter((field) => inDetail.has(field)) : [];
    known.set(item.operationId, fields);
  }
  return fields;
}
