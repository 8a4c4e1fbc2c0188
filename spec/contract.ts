/**
 * The contract as code: loads `spec/openapi.yaml` and compiles Ajv validators from it. The
 * contract's named facts (limit bounds, error codes, key prefix, scopes, credential names, paths)
 * live in `facts.ts`, a light module imported from there alone.
 * The reference server's tests, the conformance suite and the spec tests all use this one module,
 * so no schema is ever written a second time.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import { parse } from 'yaml';
import { LIVE_SPEC_PATH } from './facts.ts';
import { remembered } from './remembered.ts';

export type OpenApiDocument = OpenAPIV3_1.Document;
type JsonObject = Record<string, unknown>;

export function loadSpec(path: string = LIVE_SPEC_PATH): OpenApiDocument {
  return parse(readFileSync(path, 'utf8')) as OpenApiDocument;
}

/** Follows a local `$ref` (`#/components/...`) inside the document. */
export function resolveRef<T>(doc: OpenApiDocument, value: T | { $ref: string } | undefined): T {
  if (value === undefined) throw new Error('resolveRef: nothing to resolve');
  let current: unknown = value;
  for (let hops = 0; isRef(current); hops++) {
    if (hops > 16) throw new Error(`$ref chain too deep at ${current.$ref}`);
    current = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, key) => (node as JsonObject | undefined)?.[key], doc);
    if (current === undefined) throw new Error(`unresolved $ref in spec: ${JSON.stringify(value)}`);
  }
  return current as T;
}

function isRef(value: unknown): value is { $ref: string } {
  return typeof value === 'object' && value !== null && typeof (value as JsonObject).$ref === 'string';
}

export interface Operation {
  operationId: string;
  method: string;
  /** The path template, e.g. `/api/v1/walks/{id}`. */
  path: string;
  /** Documented status codes as strings (`'200'`, `'404'`, ...). */
  statuses: string[];
  /** Scopes from the `x-required-scopes` extension. */
  requiredScopes: string[];
  definition: OpenAPIV3_1.OperationObject;
}

/** The scopes of `x-required-scopes`: a list of them, or one scope written alone. */
function scopesOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((scope): scope is string => typeof scope === 'string') : [];
}

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const) {
      const definition = item?.[method];
      if (!definition?.operationId) continue;
      operations.push({
        operationId: definition.operationId,
        method: method.toUpperCase(),
        path,
        statuses: Object.keys(definition.responses ?? {}),
        requiredScopes: scopesOf((definition as JsonObject)['x-required-scopes']),
        definition,
      });
    }
  }
  return operations;
}

/** The documented media types of one response (`application/json`, ...); empty when it has no body. */
export function mediaTypesOf(doc: OpenApiDocument, operation: Operation, status: string): string[] {
  const response = operation.definition.responses?.[status];
  if (!response) return [];
  return Object.keys(resolveRef<OpenAPIV3_1.ResponseObject>(doc, response).content ?? {});
}

/** The stop statuses, in the written spec's order, as the spec's enum lists them. */
export function stopStatusesOf(doc: OpenApiDocument): string[] {
  const schema = doc.components?.schemas?.StopStatus as { enum?: string[] } | undefined;
  if (!schema?.enum) throw new Error('spec has no StopStatus enum');
  return schema.enum;
}

export interface ValidationResult {
  valid: boolean;
  /** Human-readable problems, e.g. `/data/0/counts must NOT have additional properties (extra)`. */
  errors: string[];
}

export interface ContractValidator {
  /** Validates a body against the documented schema of that operation's status (JSON media type). */
  validateResponse(operationId: string, status: number | string, body: unknown): ValidationResult;
  /** Validates a value against a named component schema, e.g. `WalkSummary`. */
  validateSchema(name: string, value: unknown): ValidationResult;
  /** Whether the operation documents this status code at all. */
  documentsStatus(operationId: string, status: number | string): boolean;
  operation(operationId: string): Operation;
  readonly doc: OpenApiDocument;
}

export interface ValidatorOptions {
  /**
   * `closed` (default) keeps `additionalProperties: false` / `unevaluatedProperties: false` as the
   * spec writes them, so an undocumented field is an error. `open` drops them, so only what the
   * spec requires is checked: strict mode uses closed, the default mode open (undocumented fields
   * are then reported as drift, not failure).
   */
  objects?: 'closed' | 'open';
}

const SCHEMA_ID = 'urn:canvassing:contract';

/**
 * Verdicts of the URI format and the link patterns remembered per string, at most: the same links
 * of the same walks come back in answer after answer (`--traffic` judges thousands), and these
 * tests are the dearest part of validating a list. A string's verdict never changes.
 */
const MAX_REMEMBERED = 4096;

/** Ajv's `pattern` keyword through a regular expression that remembers (Ajv's `code.regExp` option). */
const rememberingRegExp = Object.assign(
  (pattern: string, flags: string) => {
    const regExp = new RegExp(pattern, flags);
    return {
      test: remembered((value) => regExp.test(value), MAX_REMEMBERED),
      toString: () => regExp.toString(),
    };
  },
  // What standalone code would call: this project never generates it.
  { code: 'new RegExp' },
);

/** Compiles validators from the spec. Compile once and reuse: compiling costs milliseconds. */
export function createContractValidator(
  doc: OpenApiDocument = loadSpec(),
  options: ValidatorOptions = {},
): ContractValidator {
  const open = options.objects === 'open';
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictTypes: false,
    code: { regExp: rememberingRegExp },
  });
  formats.default(ajv);
  ajv.addFormat('uri', remembered(formats.default.get('uri') as (value: string) => boolean, MAX_REMEMBERED));
  // OpenAPI annotations that are not JSON Schema keywords.
  ajv.addVocabulary(['example', 'xml', 'externalDocs', 'discriminator', ...extensionKeywords(doc)]);
  const defs = rewriteRefs(doc.components?.schemas ?? {}, open) as JsonObject;
  ajv.addSchema({ $id: SCHEMA_ID, $defs: defs });

  const operations = new Map(operationsOf(doc).map((op) => [op.operationId, op]));
  const cache = new Map<string, ValidateFunction | null>();

  function operation(operationId: string): Operation {
    const op = operations.get(operationId);
    if (!op) throw new Error(`spec has no operation ${operationId}`);
    return op;
  }

  function responseValidator(operationId: string, status: string): ValidateFunction | null {
    const key = `${operationId} ${status}`;
    if (!cache.has(key)) {
      const response = operation(operationId).definition.responses?.[status];
      const media = response && resolveRef<OpenAPIV3_1.ResponseObject>(doc, response).content;
      const schema = media?.['application/json']?.schema;
      cache.set(key, schema ? ajv.compile(rewriteRefs(schema, open) as JsonObject) : null);
    }
    return cache.get(key) ?? null;
  }

  function run(validate: ValidateFunction, value: unknown): ValidationResult {
    const valid = validate(value) as boolean;
    return { valid, errors: valid ? [] : formatErrors(validate.errors) };
  }

  return {
    doc,
    operation,
    documentsStatus: (operationId, status) => operation(operationId).statuses.includes(String(status)),
    validateResponse(operationId, status, body) {
      const validate = responseValidator(operationId, String(status));
      if (!validate) {
        return { valid: false, errors: [`${operationId} documents no JSON body for status ${status}`] };
      }
      return run(validate, body);
    },
    validateSchema(name, value) {
      const validate = ajv.getSchema(`${SCHEMA_ID}#/$defs/${name}`);
      if (!validate) throw new Error(`spec has no schema ${name}`);
      return run(validate, value);
    },
  };
}

function formatErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const where = e.instancePath || '(body)';
    const extra =
      e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties'
        ? ` (${String((e.params as JsonObject).additionalProperty ?? (e.params as JsonObject).unevaluatedProperty)})`
        : e.keyword === 'enum'
          ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})`
          : '';
    return `${where} ${e.message ?? e.keyword}${extra}`;
  });
}

/** Points `#/components/schemas/X` at the compiled `$defs`, and opens closed objects if asked. */
function rewriteRefs(node: unknown, open: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, open));
  if (typeof node !== 'object' || node === null) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') {
      out.$ref = value.replace('#/components/schemas/', `${SCHEMA_ID}#/$defs/`);
    } else if (
      open &&
      (key === 'additionalProperties' || key === 'unevaluatedProperties') &&
      value === false
    ) {
      // dropped: the open variant tolerates undocumented fields
    } else {
      out[key] = rewriteRefs(value, open);
    }
  }
  return out;
}

function extensionKeywords(doc: OpenApiDocument): string[] {
  const found = new Set<string>();
  const visit = (node: unknown) => {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) found.add(key);
      visit(value);
    }
  };
  visit(doc.components?.schemas);
  return [...found];
}
