/**
 * Facts of the contract, each written once. What `spec/openapi.yaml` states (the bounds and
 * default of `limit`, the error codes and their statuses) is read from it; what it does not state
 * as data (the key prefix, the scope name, the credential names, the conformance result classes)
 * is named here. Everything else imports these names.
 *
 * Cheap to import, because the reference server does at start-up: no Ajv, and only the two YAML
 * blocks that hold the facts are parsed (a whole-document parse costs over 100 ms on a busy
 * machine; the blocks take a few). `spec/test/facts.test.ts` holds every value to a full parse.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const LIVE_SPEC_PATH = fileURLToPath(new URL('./openapi.yaml', import.meta.url));
export const PLANNED_SPEC_PATH = fileURLToPath(new URL('./planned.openapi.yaml', import.meta.url));

/** Every key starts with it (written spec §5.3: `svc_sk_live_<KEY_BODY>`). */
export const KEY_PREFIX = 'svc_sk_live_';

/** The scope both live endpoints need (the spec's `x-required-scopes`). */
export const WALKS_READ_SCOPE = 'walks:read';

/** Every read scope a key can carry (written spec §5.6), live and planned. */
export const SCOPES = [WALKS_READ_SCOPE, 'lists:read', 'outdoor:read', 'sms:read'] as const;
export type Scope = (typeof SCOPES)[number];

/** The five demo keys' variable names (`../shared/CONTRACT.md`), in the contract's order. */
export const CREDENTIAL_KEY_NAMES = [
  'CONFORMANCE_API_KEY',
  'CONFORMANCE_NO_SCOPE_KEY',
  'CONFORMANCE_OTHER_CAMPAIGN_KEY',
  'CONFORMANCE_REVOKED_KEY',
  'CONFORMANCE_EMPTY_CAMPAIGN_KEY',
] as const;
export type CredentialKeyName = (typeof CREDENTIAL_KEY_NAMES)[number];

/** The variable that carries the deployment's `{web_base_url}`. */
export const WEB_BASE_URL_NAME = 'CONFORMANCE_WEB_BASE_URL';

/** All six credential variables of `--print-credentials`, in the contract's order. */
export const CREDENTIAL_NAMES = [...CREDENTIAL_KEY_NAMES, WEB_BASE_URL_NAME] as const;
export type CredentialName = (typeof CREDENTIAL_NAMES)[number];

/** How the conformance suite classes each check's result. */
export const RESULT_CLASSES = ['pass', 'fail', 'skip', 'advisory', 'inconclusive'] as const;
export type ResultClass = (typeof RESULT_CLASSES)[number];

export interface LimitFacts {
  /** The query parameter's name. */
  name: string;
  minimum: number;
  maximum: number;
  default: number;
}

const specLines = readFileSync(LIVE_SPEC_PATH, 'utf8').split(/\r?\n/);

/** `components.parameters.Limit` of the spec. */
export const LIMIT: Readonly<LimitFacts> = Object.freeze(
  limitOf(blockAt(['components', 'parameters', 'Limit'])),
);

/**
 * Every error code the spec names, with its HTTP status, as the `Error.code` description states
 * them ("`invalid_parameter`, `conflicting_credentials` and `bad_request` (400), ...").
 */
export const ERROR_STATUSES: Readonly<Record<string, number>> = Object.freeze(
  errorStatusesOf(blockAt(['components', 'schemas', 'Error', 'properties', 'code'])),
);

/** The status of an error code the spec names; throws for any other, so a typo fails at once. */
export function statusOfError(code: string): number {
  const status = ERROR_STATUSES[code];
  if (status === undefined) throw new Error(`spec/openapi.yaml names no error code ${JSON.stringify(code)}`);
  return status;
}

function limitOf(block: Record<string, unknown>): LimitFacts {
  const schema = (block.schema ?? {}) as Record<string, unknown>;
  const facts = {
    name: block.name,
    minimum: schema.minimum,
    maximum: schema.maximum,
    default: schema.default,
  };
  for (const [key, value] of Object.entries(facts)) {
    if (value === undefined) throw new Error(`spec/openapi.yaml: the Limit parameter states no ${key}`);
  }
  return facts as LimitFacts;
}

function errorStatusesOf(block: Record<string, unknown>): Record<string, number> {
  const statuses: Record<string, number> = {};
  // Each run of back-quoted codes ends with its status in parentheses.
  const runs = String(block.description ?? '').split(/\((\d{3})\)/);
  for (let i = 1; i < runs.length; i += 2) {
    for (const [, code] of (runs[i - 1] ?? '').matchAll(/`([a-z][a-z0-9_]*)`/g)) {
      statuses[code as string] = Number(runs[i]);
    }
  }
  if (Object.keys(statuses).length === 0) throw new Error('spec/openapi.yaml: Error.code names no code');
  return statuses;
}

/** The mapping at `path` in the spec, parsed on its own: the lines indented under its key. */
function blockAt(path: readonly string[]): Record<string, unknown> {
  let body = specLines;
  for (const key of path) {
    const depth = indentOf(body.find(hasContent) ?? '');
    const start = body.findIndex((line) => indentOf(line) === depth && line.startsWith(`${key}:`, depth));
    if (start < 0 || !hasContent(body[start] ?? ''))
      throw new Error(`spec/openapi.yaml has no ${path.join('.')}`);
    let end = start + 1;
    while (end < body.length && (!hasContent(body[end] ?? '') || indentOf(body[end] ?? '') > depth)) end++;
    body = body.slice(start + 1, end);
  }
  const depth = indentOf(body.find(hasContent) ?? '');
  const text = body.map((line) => (indentOf(line) >= depth ? line.slice(depth) : '')).join('\n');
  return (parse(text) ?? {}) as Record<string, unknown>;
}

function hasContent(line: string): boolean {
  const text = line.trimStart();
  return text !== '' && !text.startsWith('#');
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
