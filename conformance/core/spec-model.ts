/**
 * The operations of the spec under test, read once: what the engine plans and judges by. Every fact
 * a rule needs (paths and their parameters, `limit` bounds, `x-required-scopes`, documented
 * statuses, error codes and the schemas behind them) comes from this model of the document given
 * (`--spec FILE`, or the project's own), never from a constant of another file.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { OpenAPIV3_1 } from 'openapi-types';
import { parse } from 'yaml';
import type { ContractValidator, OpenApiDocument, Operation } from '../../spec/contract.ts';
import { createContractValidator, operationsOf, resolveRef } from '../../spec/contract.ts';
import { errorStatusesOf, PLANNED_SPEC_PATH } from '../../spec/facts.ts';
import { isObject } from '../../spec/json-value.ts';
import { ConfigError } from './config-error.ts';
import { limitedArrayOf, type Pagination, paginationOf } from './pagination.ts';
import { schemaAt, successSchema, typeOf } from './schemas.ts';

/** An integer query parameter that caps how many items a collection returns (written spec §8). */
export interface LimitParameter {
  name: string;
  minimum: number;
  maximum: number;
  default: number;
  /** The array of the success body it bounds (`data`, `data.voters`): as the operation declares it. */
  items: string;
}

/**
 * `collection`: a GET without path parameters whose success `data` is an array; `item`: a GET whose
 * last path segment is a parameter naming one item of the collection at its parent path; `other`:
 * anything else (judged by the answer rules alone).
 */
type OperationKind = 'collection' | 'item' | 'other';

export interface OperationModel extends Operation {
  /** Whether the operation answers on a live deployment (`x-status: planned` says it does not). */
  live: boolean;
  kind: OperationKind;
  /** The path parameters, in template order. */
  pathParameters: string[];
  /** Set when the operation takes a `limit` query parameter with integer bounds. */
  limit?: LimitParameter;
  /** Whether a key is required (`security` of the operation or, failing it, of the document). */
  secured: boolean;
  /** For an item operation: the collection operation at its parent path. */
  collection?: OperationModel;
  /** For a collection operation: the item operations below it. */
  items: OperationModel[];
  /** Whether the success envelope carries `meta.count`. */
  counted: boolean;
  /** How a GET pages with a cursor (`x-pagination`, or the common shape inferred). */
  pagination?: Pagination;
}

export interface SpecIdentity {
  path: string;
  version: string;
  sha256: string;
}

export interface SpecModel {
  readonly doc: OpenApiDocument;
  readonly identity: SpecIdentity;
  /** Every operation, in document order. */
  readonly operations: readonly OperationModel[];
  /** The live GET operations: what every generic rule family is applied to. */
  readonly live: readonly OperationModel[];
  /** Open objects: decides pass or fail on shapes. */
  readonly contract: ContractValidator;
  /** Closed objects: its extra findings (undocumented fields) are drift. */
  readonly closedContract: ContractValidator;
  /** Every error code the spec names, with its status. */
  readonly errorStatuses: Readonly<Record<string, number>>;
  /** The first characters every key has, from the bearer scheme's `bearerFormat` (`svc_sk_live_`). */
  readonly keyPrefix?: string;
  /** The common prefix of every live path, `/api/v1`: a base URL stops before it. */
  readonly apiPrefix: string;
  /** Path templates planned but not live in this document (lists, SMS, signs while they are planned). */
  readonly plannedPaths: readonly string[];
  operation(operationId: string): OperationModel;
  /** The operation a request path (below the base URL) and method belong to, with its parameters. */
  match(method: string, path: string): { op: OperationModel; params: Record<string, string> } | undefined;
  /** The status the spec gives an error code, or undefined when it names no such code. */
  statusOfCode(code: string): number | undefined;
  /** The error codes an operation's documented answer with this status gives in its examples. */
  codesOf(op: OperationModel, status: number): string[];
}

const METHODS_WITH_BODIES = new Set(['GET']);

/** Loads and models a spec file; an unusable one is a configuration error (exit 2, one line). */
export function loadSpecModel(path: string, plannedPath: string = PLANNED_SPEC_PATH): SpecModel {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `--spec ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let doc: OpenApiDocument;
  try {
    doc = parse(text) as OpenApiDocument;
  } catch (error) {
    throw new ConfigError(`--spec ${path} is not YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  const identity: SpecIdentity = {
    path,
    version: String((doc as { info?: { version?: unknown } })?.info?.version ?? 'unknown'),
    sha256: createHash('sha256').update(text).digest('hex'),
  };
  return specModelOf(doc, identity, plannedPathsOf(plannedPath));
}

/** The model of a parsed document (tests build documents in memory). */
export function specModelOf(
  doc: OpenApiDocument,
  identity: SpecIdentity,
  planned: readonly string[] = [],
): SpecModel {
  const where = `--spec ${identity.path}`;
  if (!isObject(doc) || typeof doc.openapi !== 'string' || !/^3\.1\.\d+$/.test(doc.openapi)) {
    throw new ConfigError(
      `${where} is not an OpenAPI 3.1 document (its openapi field is ${JSON.stringify(isObject(doc) ? doc.openapi : undefined)})`,
    );
  }
  const { contract, closedContract, operations } = usable(where, () => ({
    contract: createContractValidator(doc, { objects: 'open' }),
    closedContract: createContractValidator(doc, { objects: 'closed' }),
    operations: operationsOf(doc).map((operation) => modelOf(doc, operation)),
  }));
  linkItems(operations);
  const live = liveOperationsOf(where, operations);
  const errorStatuses = errorStatusesIn(doc, operations);
  const livePaths = new Set(operations.filter((op) => op.live).map((op) => op.path));
  return {
    doc,
    identity,
    operations,
    live,
    contract,
    closedContract,
    errorStatuses,
    ...keyPrefixOf(doc),
    apiPrefix: commonPrefix(live.map((op) => op.path)),
    plannedPaths: planned.filter((path) => !livePaths.has(path)),
    operation(operationId) {
      const found = operations.find((op) => op.operationId === operationId);
      if (!found) throw new Error(`the spec has no operation ${operationId}`);
      return found;
    },
    match: matcherOf(operations),
    statusOfCode: (code) => errorStatuses[code],
    codesOf(op, status) {
      return errorCodesOf(doc, op, String(status));
    },
  };
}

/** What `build` makes of a document, or the configuration error that says it cannot be used. */
function usable<T>(where: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw new ConfigError(
      `${where} is not a usable OpenAPI document: ${(error as Error).message.split('\n')[0]}`,
    );
  }
}

/** The live GET operations; a spec without one, or with one that names no scope, is refused. */
function liveOperationsOf(where: string, operations: OperationModel[]): OperationModel[] {
  const live = operations.filter((op) => op.live && op.method === 'GET');
  if (live.length === 0) throw new ConfigError(`${where} has no live GET operation to check`);
  for (const op of live) {
    if (op.secured && op.requiredScopes.length === 0) {
      throw new ConfigError(
        `${where}: operation ${op.operationId} (GET ${op.path}) names no scope in x-required-scopes`,
      );
    }
  }
  return live;
}

/** The operation of a method and a path below the base URL, with its parameters decoded. */
function matcherOf(operations: readonly OperationModel[]): SpecModel['match'] {
  const routes = operations.map((op) => ({ op, pattern: patternOf(op.path) }));
  return (method, path) => {
    const wanted = method === 'HEAD' ? 'GET' : method;
    for (const { op, pattern } of routes) {
      if (op.method !== wanted) continue;
      const found = pattern.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      op.pathParameters.forEach((name, index) => {
        params[name] = safeDecode(found[index + 1] ?? '');
      });
      return { op, params };
    }
    return undefined;
  };
}

function modelOf(doc: OpenApiDocument, operation: Operation): OperationModel {
  const definition = operation.definition as OpenAPIV3_1.OperationObject & Record<string, unknown>;
  const pathItem = doc.paths?.[operation.path] as OpenAPIV3_1.PathItemObject | undefined;
  const parameters = [...(pathItem?.parameters ?? []), ...(definition.parameters ?? [])].map((p) =>
    resolveRef<OpenAPIV3_1.ParameterObject>(doc, p),
  );
  const pathParameters = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const data = successProperty(doc, operation, 'data');
  const isArray = data !== undefined && typeOf(data, doc) === 'array';
  const isObjectData = data !== undefined && typeOf(data, doc) === 'object';
  const kind: OperationKind =
    operation.method === 'GET' && pathParameters.length === 0 && isArray
      ? 'collection'
      : operation.method === 'GET' &&
          pathParameters.length > 0 &&
          /\/\{[^}]+\}$/.test(operation.path) &&
          isObjectData
        ? 'item'
        : 'other';
  const security = definition.security ?? doc.security ?? [];
  const model: OperationModel = {
    ...operation,
    live: definition['x-status'] !== 'planned',
    kind,
    pathParameters,
    secured: security.some((requirement) => Object.keys(requirement).length > 0),
    items: [],
    counted: successProperty(doc, operation, 'meta') !== undefined,
  };
  if (!METHODS_WITH_BODIES.has(operation.method)) return model;
  const pagination = paginationOf(doc, operation);
  if (pagination) model.pagination = pagination;
  const limit = limitOf(parameters, limitedArrayOf(doc, operation, pagination));
  if (limit) model.limit = limit;
  return model;
}

/** Gives each item operation its collection (the operation at its parent path) and back. */
function linkItems(operations: OperationModel[]): void {
  for (const op of operations) {
    if (op.kind !== 'item') continue;
    const parent = op.path.replace(/\/\{[^}]+\}$/, '');
    const collection = operations.find(
      (c) => c.kind === 'collection' && c.path === parent && c.live === op.live,
    );
    if (!collection) {
      op.kind = 'other';
      continue;
    }
    op.collection = collection;
    collection.items.push(op);
  }
}

/**
 * The `limit` query parameter with its integer bounds, when the operation has one and its answer
 * shows the array it bounds.
 */
function limitOf(
  parameters: OpenAPIV3_1.ParameterObject[],
  items: string | undefined,
): LimitParameter | undefined {
  const param = parameters.find((p) => p.in === 'query' && p.name === 'limit');
  if (items === undefined) return undefined;
  const schema = param?.schema as OpenAPIV3_1.SchemaObject | undefined;
  if (!param || !schema || typeOf(schema) !== 'integer') return undefined;
  const { minimum, maximum } = schema;
  if (typeof minimum !== 'number' || typeof maximum !== 'number') return undefined;
  const fallback = typeof schema.default === 'number' ? schema.default : maximum;
  return { name: param.name, minimum, maximum, default: fallback, items };
}

/**
 * A property of the documented 200 JSON body's schema, looked up through `$ref` and `allOf`: `data`
 * (what the rules read the items' fields from) or `meta`.
 */
export function successProperty(
  doc: OpenApiDocument,
  operation: Operation,
  name: string,
): OpenAPIV3_1.SchemaObject | undefined {
  return schemaAt(doc, successSchema(doc, operation), name);
}

/** The error codes and their statuses: the `Error.code` description's, then every documented example. */
function errorStatusesIn(doc: OpenApiDocument, operations: OperationModel[]): Record<string, number> {
  const statuses: Record<string, number> = {};
  for (const op of operations) {
    for (const status of op.statuses) {
      if (!/^\d{3}$/.test(status)) continue;
      for (const code of errorCodesOf(doc, op, status)) statuses[code] ??= Number(status);
    }
  }
  const description = (
    doc.components?.schemas?.Error as { properties?: { code?: { description?: unknown } } } | undefined
  )?.properties?.code?.description;
  if (typeof description === 'string') {
    try {
      Object.assign(statuses, errorStatusesOf(description));
    } catch {
      // A description that names no code adds nothing to what the examples say.
    }
  }
  return statuses;
}

/** The `error.code` values of one documented answer's examples. */
function errorCodesOf(doc: OpenApiDocument, op: Operation, status: string): string[] {
  const response = op.definition.responses?.[status];
  if (!response) return [];
  const media = resolveRef<OpenAPIV3_1.ResponseObject>(doc, response).content?.['application/json'];
  const values = [
    media?.example,
    ...Object.values(media?.examples ?? {}).map(
      (ref) => resolveRef<OpenAPIV3_1.ExampleObject>(doc, ref).value,
    ),
  ];
  const codes = values
    .map((value) => (isObject(value) && isObject(value.error) ? value.error.code : undefined))
    .filter((code): code is string => typeof code === 'string');
  return [...new Set(codes)];
}

/** `svc_sk_live_` from `bearerFormat: svc_sk_live_<KEY_BODY>`. */
function keyPrefixOf(doc: OpenApiDocument): { keyPrefix?: string } {
  for (const scheme of Object.values(doc.components?.securitySchemes ?? {})) {
    const format = (resolveRef<OpenAPIV3_1.SecuritySchemeObject>(doc, scheme) as { bearerFormat?: unknown })
      .bearerFormat;
    const prefix = typeof format === 'string' ? /^([A-Za-z0-9_-]+)</.exec(format)?.[1] : undefined;
    if (prefix) return { keyPrefix: prefix };
  }
  return {};
}

/** The longest run of whole segments every path starts with (`/api/v1`). */
function commonPrefix(paths: string[]): string {
  const split = paths.map((p) => p.split('/').filter(Boolean));
  const first = split[0] ?? [];
  let shared = 0;
  while (
    shared < first.length - 1 &&
    !first[shared]?.startsWith('{') &&
    split.every((segments) => segments.length > shared + 1 && segments[shared] === first[shared])
  ) {
    shared++;
  }
  return shared === 0 ? '' : `/${first.slice(0, shared).join('/')}`;
}

function patternOf(template: string): RegExp {
  const parts = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('([^/]+)')}$`);
}

/** A percent-encoded text decoded, or as it is when it does not decode (`%zz`, a lone `%`). */
export function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The path templates of the planned document (the live spec never lists them). */
function plannedPathsOf(path: string): string[] {
  try {
    const doc = parse(readFileSync(path, 'utf8')) as OpenApiDocument;
    return Object.keys(doc.paths ?? {});
  } catch {
    return [];
  }
}

/** The path of one item: the template's parameters filled in order, each percent-encoded. */
export function pathOf(op: Pick<OperationModel, 'path'>, ...values: string[]): string {
  let index = 0;
  return op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(values[index++] ?? ''));
}
