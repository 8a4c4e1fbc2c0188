/**
 * Facts of the contract, each written once. What `spec/openapi.yaml` states (the bounds and
 * default of `limit`, the error codes and their statuses) is read from it; what it does not state
 * as data (the key prefix, the scope name, the credential names, the conformance result classes)
 * is named here. Everything else imports these names.
 *
 * Cheap to import, because the reference server does at start-up: no Ajv and no YAML library.
 * The few values it needs are plain scalars and one literal block, read straight from their lines
 * (importing the yaml package and parsing the whole document cost more than every command's
 * start-up needs). `spec/test/facts.test.ts` holds every value to a full parse.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const LIVE_SPEC_PATH = fileURLToPath(new URL('./openapi.yaml', import.meta.url));
export const PLANNED_SPEC_PATH = fileURLToPath(new URL('./planned.openapi.yaml', import.meta.url));

/** Every key starts with it (written spec §5.3: `svc_sk_live_<KEY_BODY>`). */
export const KEY_PREFIX = 'svc_sk_live_';

/** The scope both live endpoints need (the spec's `x-required-scopes`). */
export const WALKS_READ_SCOPE = 'walks:read';
/** The scope of the planned lists endpoints (`spec/planned.openapi.yaml`). */
export const LISTS_READ_SCOPE = 'lists:read';

/** Every read scope a key can carry (written spec §5.6), live and planned. */
export const SCOPES = [WALKS_READ_SCOPE, LISTS_READ_SCOPE, 'outdoor:read', 'sms:read'] as const;
export type Scope = (typeof SCOPES)[number];

/** The five demo keys' variable names (`docs/contract.md`), in the contract's order. */
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
export const RESULT_CLASSES = ['pass', 'fail', 'skip', 'advisory', 'not-judged'] as const;
export type ResultClass = (typeof RESULT_CLASSES)[number];

export interface LimitFacts {
  /** The query parameter's name. */
  name: string;
  minimum: number;
  maximum: number;
  default: number;
}

const specLines = readFileSync(LIVE_SPEC_PATH, 'utf8').split(/\r?\n/);
const LIMIT_PATH = ['components', 'parameters', 'Limit'];

/**
 * The scopes the live operations of the spec need (their `x-required-scopes`), each once, in
 * document order: what the demo keys of every role but the no-scope key hold.
 */
export const LIVE_SCOPES: readonly Scope[] = Object.freeze(
  [...new Set(requiredScopesIn(specLines))].filter((scope): scope is Scope =>
    (SCOPES as readonly string[]).includes(scope),
  ),
);

/**
 * Every scope the `x-required-scopes` of a spec's lines name, in document order, in each form YAML
 * gives a list of them: a flow sequence (`[walks:read]`, over several lines too), a block sequence
 * (`- walks:read` on the lines below), or one scope alone (`walks:read`); quoted or not, with
 * comments. `test/facts.test.ts` holds every form to a full YAML parse.
 */
export function requiredScopesIn(lines: readonly string[]): string[] {
  const scopes: string[] = [];
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at] ?? '';
    const key = /^(\s*)(["']?)x-required-scopes\2:(?:\s+(.*))?$/.exec(line);
    if (!key) continue;
    const depth = key[1]?.length ?? 0;
    const value = withoutComment(key[3] ?? '');
    if (value.startsWith('[')) {
      // A flow sequence ends at its closing bracket, however many lines it spans.
      let flow = value;
      while (!flow.includes(']') && at + 1 < lines.length) flow += ` ${withoutComment(lines[++at] ?? '')}`;
      scopes.push(...flow.slice(1, flow.indexOf(']')).split(',').map(unquoted).filter(Boolean));
    } else if (value !== '') {
      scopes.push(unquoted(value));
    } else {
      // A block sequence: its items stand at the key's depth or deeper, each after a dash.
      while (at + 1 < lines.length) {
        const next = lines[at + 1] ?? '';
        if (!hasContent(next)) {
          at++;
          continue;
        }
        const item = /^(\s*)-\s+(.*)$/.exec(next);
        if (!item || (item[1]?.length ?? 0) < depth) break;
        scopes.push(unquoted(withoutComment(item[2] ?? '')));
        at++;
      }
    }
  }
  return scopes;
}

/** A YAML value without the comment that ends its line (a `#` after a space, outside quotes). */
function withoutComment(value: string): string {
  return value.replace(/^((?:"[^"]*"|'[^']*'|[^#"'])*?)(?:\s+#.*)?$/, '$1').trim();
}

/** A scalar without its quotes. */
function unquoted(value: string): string {
  const text = value.trim();
  return /^(["']).*\1$/.test(text) ? text.slice(1, -1) : text;
}

/** `components.parameters.Limit` of the spec. */
export const LIMIT: Readonly<LimitFacts> = Object.freeze({
  name: String(scalarAt([...LIMIT_PATH, 'name'])),
  minimum: integerAt([...LIMIT_PATH, 'schema', 'minimum']),
  maximum: integerAt([...LIMIT_PATH, 'schema', 'maximum']),
  default: integerAt([...LIMIT_PATH, 'schema', 'default']),
});

/** The path of the walk list, operation `listWalks` of the spec: `/api/v1/walks`. */
export const WALKS_PATH = pathOfOperation('listWalks');
/** The path template of one walk, operation `getWalk` of the spec: `/api/v1/walks/{id}`. */
export const WALK_PATH_TEMPLATE = pathOfOperation('getWalk');

/** The path of one walk: the template's only parameter filled with the id, percent-encoded. */
export function walkPath(id: string): string {
  return WALK_PATH_TEMPLATE.replace(/\{[^}]+\}/, encodeURIComponent(id));
}

/**
 * Every error code the spec names, with its HTTP status, as the `Error.code` description states
 * them ("`invalid_parameter`, `conflicting_credentials` and `bad_request` (400), ...").
 */
export const ERROR_STATUSES: Readonly<Record<string, number>> = Object.freeze(
  errorStatusesOf(String(scalarAt(['components', 'schemas', 'Error', 'properties', 'code', 'description']))),
);

/** The status of an error code the spec names; throws for any other, so a typo fails at once. */
export function statusOfError(code: string): number {
  const status = ERROR_STATUSES[code];
  if (status === undefined) throw new Error(`spec/openapi.yaml names no error code ${JSON.stringify(code)}`);
  return status;
}

/** The codes and statuses a description states, each run of codes followed by its status: `a`, `b` (400). */
export function errorStatusesOf(description: string): Record<string, number> {
  const statuses: Record<string, number> = {};
  // Each run of back-quoted codes ends with its status in parentheses.
  const runs = description.split(/\((\d{3})\)/);
  for (let i = 1; i < runs.length; i += 2) {
    for (const [, code] of (runs[i - 1] ?? '').matchAll(/`([a-z][a-z0-9_]*)`/g)) {
      statuses[code as string] = Number(runs[i]);
    }
  }
  if (Object.keys(statuses).length === 0) throw new Error('spec/openapi.yaml: Error.code names no code');
  return statuses;
}

/** The key under `paths` whose operation has this `operationId`. */
function pathOfOperation(operationId: string): string {
  const found = childrenOf(entryAt(['paths']).body).find(({ body }) =>
    body.some((line) => line.trim() === `operationId: ${operationId}`),
  );
  if (!found) throw new Error(`spec/openapi.yaml has no operation ${operationId}`);
  return found.key.replace(/^(["'])(.*)\1$/, '$2');
}

function integerAt(path: readonly string[]): number {
  const value = scalarAt(path);
  if (typeof value !== 'number') throw new Error(`spec/openapi.yaml: ${path.join('.')} is not an integer`);
  return value;
}

/**
 * The plain scalar or literal block (`|`, `|-`) at `path`. Any other YAML form is refused loudly
 * rather than misread; `test/facts.test.ts` holds every value read here to a full YAML parse.
 */
function scalarAt(path: readonly string[]): string | number {
  const { value, body } = entryAt(path);
  if (value === '|' || value === '|-') {
    const depth = indentOf(body.find(hasContent) ?? '');
    const text = body.map((line) => (indentOf(line) >= depth ? line.slice(depth) : '')).join('\n');
    return value === '|' ? `${text.replace(/\n+$/, '')}\n` : text.replace(/\n+$/, '');
  }
  const plain = value.replace(/\s+#.*$/, '');
  if (plain === '' || /^["'[{>|&*!%@`]/.test(plain)) {
    throw new Error(
      `spec/facts.ts reads ${path.join('.')} as a plain scalar or a | block, not ${JSON.stringify(value)}`,
    );
  }
  return /^-?\d+$/.test(plain) ? Number(plain) : plain;
}

/** The text after the key at `path`, and the lines indented under it. */
function entryAt(path: readonly string[]): { value: string; body: string[] } {
  let entry = { key: '', value: '', body: specLines };
  for (const key of path) {
    const child = childrenOf(entry.body).find((c) => c.key === key);
    if (!child) throw new Error(`spec/openapi.yaml has no ${path.join('.')}`);
    entry = child;
  }
  return entry;
}

/** The mapping entries of a block (keys at its first content line's depth), each with its lines. */
function childrenOf(block: readonly string[]): { key: string; value: string; body: string[] }[] {
  const depth = indentOf(block.find(hasContent) ?? '');
  const children: { key: string; value: string; body: string[] }[] = [];
  for (let start = 0; start < block.length; start++) {
    const line = block[start] ?? '';
    if (!hasContent(line) || indentOf(line) !== depth) continue;
    const match = /^((["']).*?\2|[^:#]+):(?:\s|$)/.exec(line.slice(depth));
    if (!match?.[1]) continue;
    let end = start + 1;
    while (end < block.length && (!hasContent(block[end] ?? '') || indentOf(block[end] ?? '') > depth)) end++;
    const value = line.slice(depth + match[1].length + 1).trim();
    children.push({ key: match[1].trim(), value, body: block.slice(start + 1, end) });
    start = end - 1;
  }
  return children;
}

function hasContent(line: string): boolean {
  const text = line.trimStart();
  return text !== '' && !text.startsWith('#');
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
