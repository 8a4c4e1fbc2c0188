/**
 * The sections partners look for before the endpoints (authentication, errors, rate limiting,
 * listing a whole campaign, versioning with a change log, the partner files), appended to the
 * `info.description` of the copy the page is rendered from; Redoc turns each `##` heading into an
 * entry of the page's menu. Facts come from the spec (`ERROR_STATUSES`, `LIMIT`) and the change log
 * from `spec/changelog.yaml`; nothing here is written into the spec.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { FAULT_RETRY_AFTER_S } from '../reference-server/turbulence.ts';
import { type OpenApiDocument } from '../spec/contract.ts';
import { ERROR_STATUSES, LIMIT, WALKS_PATH, WALKS_READ_SCOPE } from '../spec/facts.ts';

export const CHANGELOG_PATH = fileURLToPath(new URL('../spec/changelog.yaml', import.meta.url));
/** Where the sandbox serves the documents the page links to (reference-server/routes/reference-docs.ts). */
export const DECISIONS_URL = '/DECISIONS.md';
export const PLANNED_SPEC_URL = '/planned.openapi.yaml';

/**
 * What a client does about each error code the spec names, and the decision that fixes the answer
 * (none for the two the written spec states). A code the spec adds without advice here fails the build.
 */
export const ERROR_ADVICE: Readonly<Record<string, { todo: string; decision?: string }>> = {
  invalid_parameter: {
    todo: `Fix the request: \`${LIMIT.name}\` must be an integer from ${LIMIT.minimum} to ${LIMIT.maximum}. Do not retry unchanged.`,
    decision: 'D-LIMIT',
  },
  conflicting_credentials: {
    todo: 'Send one key, in one header. Do not retry unchanged.',
    decision: 'D-AUTH-BOTH',
  },
  bad_request: {
    todo: 'Fix the request (percent-encoding, a `Host` header). Do not retry unchanged.',
    decision: 'D-ERRORS',
  },
  unauthorized: {
    todo: 'The key is missing, malformed, unknown or revoked: check the header and the key; ask the campaign owner for a new key. Do not retry.',
    decision: 'D-AUTH-MISSING',
  },
  forbidden: {
    todo: `The key lacks the \`${WALKS_READ_SCOPE}\` scope: ask the campaign owner for a key that has it. Do not retry.`,
  },
  not_found: {
    todo: 'No such walk in this key’s campaign (or no such endpoint): take ids from the list; a walk archived or deleted since is gone. Do not retry.',
  },
  method_not_allowed: { todo: 'Use GET (or HEAD). Do not retry.', decision: 'D-METHOD' },
  request_timeout: {
    todo: 'The request arrived too slowly: send it again, whole, at once.',
    decision: 'D-ERRORS',
  },
  payload_too_large: { todo: 'Send no body: every endpoint is a GET.', decision: 'D-ERRORS' },
  headers_too_large: { todo: 'Send smaller headers (cookies, proxies).', decision: 'D-ERRORS' },
  rate_limited: {
    todo: 'Wait the seconds in `Retry-After`, then retry (see Rate limiting and back-off).',
    decision: 'D-RATE',
  },
  internal_error: {
    todo: 'Retry with exponential back-off and jitter; report the `X-Request-Id` if it persists.',
    decision: 'D-ERRORS',
  },
  service_unavailable: {
    todo: 'Wait the seconds in `Retry-After`, then retry with back-off, as on 429.',
    decision: 'D-UNAVAILABLE',
  },
};

/** A copy of the document with the partner sections after the spec's own description. */
export function withPartnerSections(doc: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(doc);
  const own = (copy.info.description ?? '')
    .replaceAll('`spec/DECISIONS.md`', `the [decision log](${DECISIONS_URL})`)
    .replaceAll('`planned.openapi.yaml`', `[\`planned.openapi.yaml\`](${PLANNED_SPEC_URL})`);
  copy.info.description = [
    own.trimEnd(),
    authenticationSection(),
    errorsSection(),
    rateLimitSection(copy),
    wholeCampaignSection(),
    versioningSection(copy.info.version),
    partnerFilesSection(),
  ].join('\n\n');
  return copy;
}

function authenticationSection(): string {
  return [
    '## Authentication',
    'Send your campaign’s key on every request in **either** header; both work the same:',
    '',
    '- `Authorization: Bearer <API_KEY>`',
    '- `x-api-key: <API_KEY>`',
    '',
    'Send one of them, not both with different keys (400 `conflicting_credentials`). Keys look like',
    '`svc_sk_live_<KEY_BODY>`, belong to one campaign, can only read, and carry scopes: the walks',
    `endpoints need \`${WALKS_READ_SCOPE}\`. **Use a key from servers only**: never in a mobile app, a`,
    'browser (the API sends no CORS headers) or a repository. Keep it in an environment variable, as',
    'the samples do (`API_KEY`), and never log it. The sandbox prints its demo keys when it starts.',
  ].join('\n');
}

function errorsSection(): string {
  const rows = Object.entries(ERROR_STATUSES)
    .sort(([a, x], [b, y]) => x - y || a.localeCompare(b))
    .map(([code, status]) => {
      const advice = ERROR_ADVICE[code];
      if (!advice) throw new Error(`docs/sections.ts: no advice for the spec's error code ${code}`);
      const source = advice.decision ? `[${advice.decision}](${DECISIONS_URL})` : 'written spec';
      return `| ${status} | \`${code}\` | ${advice.todo} | ${source} |`;
    });
  return [
    '## Errors',
    'Every failure is `{ "ok": false, "error": { "code", "message" } }`. Branch on `error.code`; the',
    'message is for people. A code you do not know: act on the HTTP status (4xx: fix the request,',
    'do not retry; 429 and 5xx: retry with back-off).',
    '',
    '| Status | `error.code` | What to do | Decided by |',
    '|---|---|---|---|',
    ...rows,
    '',
    `Another deployment may answer some of these differently where the written specification leaves`,
    `the point open; the [decision log](${DECISIONS_URL}) says which.`,
  ].join('\n');
}

function rateLimitSection(doc: OpenApiDocument): string {
  const example = (doc.components?.headers?.RetryAfter as { example?: unknown } | undefined)?.example;
  return [
    '## Rate limiting and back-off',
    'A key that sends too many requests gets **429 `rate_limited`** with a `Retry-After` header: the',
    'whole number of **seconds to wait** before the next request. Read it from every 429; do not',
    'hard-code it. Where a per-key limit of N requests a minute is enforced (the sandbox with',
    '`npm start -- --rate-limit N/min`, the reference server with the same flag), it is the time left',
    `in the key’s one-minute window: from 1 to 60. The sandbox’s injected 429 faults (\`--faults\`) say`,
    `${FAULT_RETRY_AFTER_S}; the mock’s documented example says ${String(example)}. One rule covers them all.`,
    '',
    'How to back off:',
    '',
    '1. On 429, wait `Retry-After` seconds (when it is missing, back off as for 5xx), then retry.',
    '2. On 5xx, a timeout, a reset connection or a cut answer, retry after an exponential delay',
    '   with full jitter: a random wait between 0 and `min(cap, base × 2^attempt)`.',
    '3. Keep a retry budget (for example 4 retries per request, and a share of all requests), so',
    '   an outage does not turn into a flood.',
    '4. Never retry another 4xx: the same request gets the same answer.',
    '',
    'Every request is a GET, so retrying is always safe. `examples/partner-client` does all of this.',
  ].join('\n');
}

function wholeCampaignSection(): string {
  return [
    '## Listing a whole campaign',
    `\`GET ${WALKS_PATH}\` returns at most \`${LIMIT.name}\` walks: ${LIMIT.default} by default, at most`,
    `**${LIMIT.maximum}**. Version 1 has **no pagination for walks**: no cursor, no \`offset\`, no page.`,
    `Unknown query parameters are ignored, so \`?offset=${LIMIT.maximum}\` or a misspelt`,
    `\`?limt=5\` gets the same answer as no parameter at all ([D-QUERY-UNKNOWN](${DECISIONS_URL})).`,
    '',
    `A campaign with more than ${LIMIT.maximum} active walks cannot be listed whole in v1 (the`,
    `sandbox’s demo campaign has 240). What to do:`,
    '',
    `- Ask for \`${LIMIT.name}=${LIMIT.maximum}\`. When \`meta.count\` is ${LIMIT.maximum}, assume there`,
    '  are more, and say so to your users rather than treating the list as complete.',
    '- The list is newest first: the walks it leaves out are the oldest active ones. Archiving',
    '  finished walks in the dashboard brings the active ones under the limit.',
    '- `GET /api/v1/walks/{id}` reads any active walk of the campaign, listed or not (its id is in',
    '  the walk’s dashboard address).',
    `- Pagination is planned for lists, not yet for walks ([planned endpoints](${PLANNED_SPEC_URL})).`,
  ].join('\n');
}

interface ChangelogEntry {
  version: string;
  date: string;
  changes: string[];
}

/** The entries of spec/changelog.yaml, newest first, checked against the spec's version. */
export function changelogOf(version: string, path = CHANGELOG_PATH): ChangelogEntry[] {
  const entries = parse(readFileSync(path, 'utf8')) as ChangelogEntry[];
  if (!Array.isArray(entries) || entries[0]?.version !== version) {
    throw new Error(`${path}: the first entry must be the spec's info.version ${version}`);
  }
  return entries;
}

function versioningSection(version: string): string {
  const log = changelogOf(version).flatMap((entry) => [
    `**${entry.version}** (${entry.date})`,
    '',
    ...entry.changes.map((change) => `- ${change}`),
    '',
  ]);
  return [
    '## Versioning and change log',
    `The version is in the path (\`/api/v1\`); this document is version **${version}**. The API is in`,
    'private beta: the live endpoints keep their shapes within v1 (fields may be added, so ignore',
    'fields you do not know); the planned endpoints may change before launch. A change clients must',
    'act on comes with a new path version.',
    '',
    ...log,
  ].join('\n');
}

function partnerFilesSection(): string {
  return [
    '## Files for your tools',
    'The sandbox serves each of these with its own address and its demo keys filled in:',
    '',
    '- [`/openapi.yaml`](/openapi.yaml) and [`/openapi.json`](/openapi.json): this contract, for',
    '  client generators.',
    '- [`/postman/collection.json`](/postman/collection.json) with',
    '  [`/postman/environment.json`](/postman/environment.json): every request with its checks',
    '  (`newman run` or Postman’s import).',
    '- [`/requests.http`](/requests.http): the same requests for the VS Code REST Client and the',
    '  JetBrains HTTP Client.',
    `- [The decision log](${DECISIONS_URL}) and [the planned endpoints](${PLANNED_SPEC_URL}).`,
  ].join('\n');
}
