/**
 * Versions of spec/openapi.yaml for the diff tests: the spec is loaded once, copied as the base,
 * and each variant is that copy with one change, written to a temporary folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPIV3_1 } from 'openapi-types';
import { stringify } from 'yaml';
import { loadSpec, type OpenApiDocument } from '../../contract.ts';
import { loadSpecInput, type SpecInput } from '../input.ts';

type Schema = OpenAPIV3_1.SchemaObject;
export type SpecChange = (doc: OpenApiDocument) => void;

export const LIST_PATH = '/api/v1/walks';
export const DETAIL_PATH = '/api/v1/walks/{id}';

export class SpecVariants {
  readonly dir = mkdtempSync(join(tmpdir(), 'spec-diff-test-'));
  private readonly original = loadSpec();
  readonly basePath = this.write('base', () => {});

  /** Writes the spec with `change` applied and returns the file's path. */
  write(name: string, change: SpecChange): string {
    const doc = structuredClone(this.original);
    change(doc);
    const path = join(this.dir, `${name}.yaml`);
    writeFileSync(path, stringify(doc));
    return path;
  }

  private loadedBase: SpecInput | undefined;

  /** The base, read once: nothing in spec/diff changes a document it is given. */
  base(): SpecInput {
    this.loadedBase ??= loadSpecInput(this.basePath, 'base.yaml');
    return this.loadedBase;
  }

  head(name: string, change: SpecChange): SpecInput {
    return loadSpecInput(this.write(name, change), `${name}.yaml`);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`spec/openapi.yaml has no ${what}`);
  return value;
}

export function schema(doc: OpenApiDocument, name: string): Schema {
  return must(doc.components?.schemas?.[name], `schema ${name}`);
}

export function property(doc: OpenApiDocument, schemaName: string, name: string): Schema {
  return must(schema(doc, schemaName).properties?.[name] as Schema | undefined, `${schemaName}.${name}`);
}

export function limitSchema(doc: OpenApiDocument): Schema {
  const limit = must(doc.components?.parameters?.Limit as OpenAPIV3_1.ParameterObject | undefined, 'Limit');
  return must(limit.schema as Schema | undefined, 'Limit schema');
}

export function getOperation(doc: OpenApiDocument, path: string): OpenAPIV3_1.OperationObject {
  return must(doc.paths?.[path]?.get, `GET ${path}`);
}

export function requiredScopes(doc: OpenApiDocument, path: string): string[] {
  return must(
    (getOperation(doc, path) as { 'x-required-scopes'?: string[] })['x-required-scopes'],
    `x-required-scopes on GET ${path}`,
  );
}

/** Removes a property from an object schema and from its `required` list. */
export function dropProperty(doc: OpenApiDocument, schemaName: string, name: string): void {
  const target = schema(doc, schemaName);
  must(target.properties?.[name], `${schemaName}.${name}`);
  delete target.properties?.[name];
  target.required = (target.required ?? []).filter((field) => field !== name);
}

export function addQueryParameter(doc: OpenApiDocument, parameter: OpenAPIV3_1.ParameterObject): void {
  const operation = getOperation(doc, LIST_PATH);
  operation.parameters = [...(operation.parameters ?? []), parameter];
}
