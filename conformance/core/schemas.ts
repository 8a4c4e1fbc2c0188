/**
 * Reading the schemas of a spec document: a property of an object schema through `$ref` and
 * `allOf`, and the type a schema gives. What the spec model and the pagination reading both ask of
 * a documented answer's shape.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { OpenApiDocument, Operation } from '../../spec/contract.ts';
import { resolveRef } from '../../spec/contract.ts';
import { isObject } from '../../spec/json-value.ts';

/** How deep `$ref` and `allOf` are followed before a schema is taken to have no such part. */
const DEPTH = 8;

/** The schema of the documented 200 JSON body of an operation. */
export function successSchema(
  doc: OpenApiDocument,
  operation: Operation,
): OpenAPIV3_1.SchemaObject | undefined {
  const response = operation.definition.responses?.['200'];
  if (!response) return undefined;
  const media = resolveRef<OpenAPIV3_1.ResponseObject>(doc, response).content?.['application/json'];
  return media?.schema ? resolveRef<OpenAPIV3_1.SchemaObject>(doc, media.schema) : undefined;
}

/** A property of an object schema, looked up through `$ref` and `allOf`. */
export function propertyOf(
  doc: OpenApiDocument,
  node: unknown,
  name: string,
  depth = 0,
): OpenAPIV3_1.SchemaObject | undefined {
  if (depth > DEPTH || !isObject(node)) return undefined;
  const schema = resolveRef<OpenAPIV3_1.SchemaObject>(doc, node as OpenAPIV3_1.SchemaObject);
  const own = schema.properties?.[name];
  if (own) return resolveRef<OpenAPIV3_1.SchemaObject>(doc, own);
  for (const part of schema.allOf ?? []) {
    const found = propertyOf(doc, part, name, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The schema at a dotted path below another (`data.items`), or undefined when it has none there. */
export function schemaAt(
  doc: OpenApiDocument,
  schema: OpenAPIV3_1.SchemaObject | undefined,
  path: string,
): OpenAPIV3_1.SchemaObject | undefined {
  let node = schema;
  for (const name of path.split('.')) node = node ? propertyOf(doc, node, name) : undefined;
  return node;
}

/** The names of an object schema's properties, through `$ref` and `allOf`. */
export function propertyNames(doc: OpenApiDocument, node: unknown, depth = 0): string[] {
  if (depth > DEPTH || !isObject(node)) return [];
  const schema = resolveRef<OpenAPIV3_1.SchemaObject>(doc, node as OpenAPIV3_1.SchemaObject);
  const names = Object.keys(schema.properties ?? {});
  for (const part of schema.allOf ?? []) names.push(...propertyNames(doc, part, depth + 1));
  return [...new Set(names)];
}

/** The type a schema gives (the first besides `null`), through the parts an `allOf` is made of. */
export function typeOf(
  schema: OpenAPIV3_1.SchemaObject,
  doc?: OpenApiDocument,
  depth = 0,
): string | undefined {
  const type = schema.type as string | string[] | undefined;
  if (Array.isArray(type)) return type.find((t) => t !== 'null');
  if (type) return type;
  if ('items' in schema) return 'array';
  if ('properties' in schema) return 'object';
  // A schema made of parts (`allOf: [SavedList, {voters}]`) has the type its parts give it.
  if (!doc || depth > DEPTH) return undefined;
  for (const part of schema.allOf ?? []) {
    const found = typeOf(resolveRef<OpenAPIV3_1.SchemaObject>(doc, part), doc, depth + 1);
    if (found) return found;
  }
  return undefined;
}
