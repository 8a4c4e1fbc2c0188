/**
 * The spec files the server reads. Resolved here rather than imported from `spec/contract.ts`,
 * which loads Ajv and a YAML parser: the server needs neither at run time, and they would add
 * a few hundred milliseconds to start-up. `test/spec-files.test.ts` holds these to the contract
 * module and to a real YAML parse.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const LIVE_SPEC_FILE = fileURLToPath(new URL('../spec/openapi.yaml', import.meta.url));
export const PLANNED_SPEC_FILE = fileURLToPath(new URL('../spec/planned.openapi.yaml', import.meta.url));

/** The partner files `docs/build.ts` writes beside the reference page, which the server serves. */
export const PARTNER_FILE_NAMES = {
  collection: 'postman.collection.json',
  environment: 'postman.environment.json',
  http: 'requests.http',
} as const;

/** The path templates (`/api/v1/lists/{id}`, …) under the top-level `paths:` of an OpenAPI YAML file. */
export function pathTemplatesOf(specFile: string): string[] {
  const templates: string[] = [];
  let inPaths = false;
  let indent: number | undefined;
  for (const line of readFileSync(specFile, 'utf8').split(/\r?\n/)) {
    if (/^\S/.test(line)) {
      inPaths = /^paths:\s*$/.test(line);
      continue;
    }
    if (!inPaths || line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const depth = line.length - line.trimStart().length;
    indent ??= depth;
    const key = depth === indent ? /^\s*(["']?)(\/[^"':]*)\1:\s*$/.exec(line) : null;
    if (key?.[2]) templates.push(key[2]);
  }
  return templates;
}

/**
 * The `url` of the first entry under the top-level `servers:` of an OpenAPI YAML file: the sandbox,
 * whose address the served spec, page and partner files replace with the server's own origin.
 */
export function firstServerUrlOf(specFile: string): string {
  const lines = readFileSync(specFile, 'utf8').split(/\r?\n/);
  const start = lines.findIndex((line) => /^servers:\s*$/.test(line));
  const first = start < 0 ? undefined : lines[start + 1];
  const url = first && /^\s+-\s+url:\s*["']?([^"'\s#]+)["']?\s*$/.exec(first)?.[1];
  if (!url || url.includes('{')) {
    throw new Error(`${specFile}: the first server must be a concrete URL on the line after servers:`);
  }
  return url.replace(/\/$/, '');
}

/**
 * The stand-in the partner files hold for an example id of an item operation (`getList` →
 * `__EXAMPLE_ID_GET_LIST__`), which the server fills with an id of its own data.
 */
export function exampleIdStandIn(operationId: string): string {
  return `__EXAMPLE_ID_${operationId.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}__`;
}
