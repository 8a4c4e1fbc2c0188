/**
 * Turns the engine's JSON pointers into places a reader recognises:
 * `#/paths/~1api~1v1~1walks/get/responses/200/content/application~1json/schema/properties/data/items/properties/name`
 * becomes `GET /api/v1/walks · response 200 · body data[].name`.
 */
import { type OpenApiDocument, resolveRef } from '../contract.ts';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const COMBINATORS = new Set(['allOf', 'anyOf', 'oneOf']);

export function pointerSegments(pointer: string): string[] {
  return pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** `docs`: the spec the pointer points into first, then the other, tried in turn to name a parameter. */
export function describePointer(pointer: string, docs: OpenApiDocument[]): string {
  const segments = pointerSegments(pointer);
  if (segments.length === 0) return 'document';
  const [area, path, method, ...rest] = segments;
  if (area !== 'paths' || path === undefined) return segments.join('/');
  if (method === undefined) return `path ${path}`;
  if (!METHODS.has(method)) return [`path ${path}`, [method, ...rest].join('/')].join(' · ');
  return [`${method.toUpperCase()} ${path}`, ...describeInOperation(rest, docs, segments.slice(0, 3))].join(
    ' · ',
  );
}

function describeInOperation(rest: string[], docs: OpenApiDocument[], operationSegments: string[]): string[] {
  const [section, key, ...inner] = rest;
  if (section === undefined) return [];
  if (key === undefined) return [section === 'requestBody' ? 'request body' : section];
  if (section === 'parameters') {
    const parameter = docs
      .map(
        (doc) =>
          nodeAt(doc, [...operationSegments, section, key]) as { name?: string; in?: string } | undefined,
      )
      .find((found) => found?.name);
    const name = parameter?.name
      ? `parameter ${parameter.name} (${parameter.in ?? '?'})`
      : `parameter #${key}`;
    return inner[0] === 'schema' ? [name, ...schemaPlace(inner.slice(1), '')] : [name, ...joined(inner)];
  }
  if (section === 'responses') return [`response ${key}`, ...describeInMessage(inner)];
  if (section === 'requestBody') return ['request body', ...describeInMessage([key, ...inner])];
  if (section === 'security') return ['security'];
  return [[section, key, ...inner].join('/')];
}

/** Inside a response or request body: headers, media types, the body schema, examples. */
function describeInMessage(segments: string[]): string[] {
  const [section, name, ...inner] = segments;
  if (section === 'headers' && name !== undefined) return [`header ${name}`, ...joined(inner.slice(1))];
  if (section === 'content' && name !== undefined) {
    const [part, ...below] = inner;
    if (part === 'schema') return schemaPlace(below, 'body');
    if (part === 'examples' && below[0] !== undefined) return [`${name} example ${below[0]}`];
    return [name, ...joined(inner)];
  }
  return joined(segments);
}

/** `properties/data/items/properties/name` → `data[].name`; `$ref` hops and combinators vanish. */
function schemaPlace(segments: string[], prefix: string): string[] {
  let field = '';
  const tail: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    if (tail.length > 0) tail.push(segment);
    else if (segment === 'properties' && segments[i + 1] !== undefined) {
      field += `${field ? '.' : ''}${segments[++i]}`;
    } else if (segment === 'items') field += '[]';
    else if (segment === 'additionalProperties') field += '{*}';
    else if (segment === '$ref') continue;
    else if (COMBINATORS.has(segment) && /^\d+$/.test(segments[i + 1] ?? '')) i++;
    else tail.push(segment);
  }
  const place = [prefix, field].filter(Boolean).join(' ');
  return [...(place ? [place] : []), ...joined(tail)];
}

function joined(segments: string[]): string[] {
  return segments.length ? [segments.join('/')] : [];
}

/** Follows the pointer through `doc`, resolving `$ref`s on the way; undefined when it leads nowhere. */
export function nodeAt(doc: OpenApiDocument, segments: string[]): unknown {
  let node: unknown = doc;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null) return undefined;
    try {
      node = resolveRef<unknown>(doc, (node as Record<string, unknown>)[segment]);
    } catch {
      return undefined;
    }
  }
  return node;
}
