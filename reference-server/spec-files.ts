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
