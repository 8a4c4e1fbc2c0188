/** A next version of the spec that renames a response field: `WalkSummary.counts` → `counts_by_status`. */
import { writeFileSync } from 'node:fs';
import type { OpenAPIV3_1 } from 'openapi-types';
import { stringify } from 'yaml';
import { loadSpec } from '../../contract.ts';

export const OLD_FIELD = 'counts';
export const NEW_FIELD = 'counts_by_status';

/** Writes the current spec with the field renamed (examples left as they were) to `path`. */
export function writeRenamedSpec(path: string): void {
  const doc = loadSpec();
  const summary = doc.components?.schemas?.WalkSummary as OpenAPIV3_1.SchemaObject;
  const properties = summary.properties ?? {};
  summary.properties = Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [name === OLD_FIELD ? NEW_FIELD : name, schema]),
  );
  summary.required = (summary.required ?? []).map((name) => (name === OLD_FIELD ? NEW_FIELD : name));
  writeFileSync(path, stringify(doc));
}

/** The environment without any CONFORMANCE_* variable, so the suite checks its embedded server. */
export function envWithoutTarget(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CONFORMANCE_')));
}
