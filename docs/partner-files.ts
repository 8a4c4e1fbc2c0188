/**
 * The files partners import into their HTTP tools, made from the spec when the docs are built: a
 * Postman collection (v2.1) with its environment, and a `.http` file for the VS Code REST Client and
 * the JetBrains HTTP Client. Each names the sandbox as the spec's first server and holds stand-ins
 * (`__CONFORMANCE_API_KEY__`, `__SAMPLE_WALK_ID__`) that the sandbox fills with its own origin,
 * demo keys and a walk of its data when it serves them (reference-server/routes/reference-docs.ts).
 *
 * Every request asserts its status and the envelope. The error cases carry a `Prefer` header, so
 * the Prism mock (which checks keys only for presence) gives the same documented answer as the
 * sandbox, which ignores the header: one collection runs against both.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { type OpenApiDocument, type Operation, operationsOf, resolveRef } from '../spec/contract.ts';
import { CREDENTIAL_KEY_NAMES, type CredentialKeyName, LIMIT, statusOfError } from '../spec/facts.ts';
import { schemaAt, successSchema } from '../spec/pagination.ts';
import { exampleIdStandIn } from '../reference-server/spec-files.ts';
import { sandboxUrlOf } from './code-samples.ts';

export const POSTMAN_SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';
/** The stand-in for the walk the detail requests read; the sandbox serves one of its own. */
export const SAMPLE_WALK_STAND_IN = '__SAMPLE_WALK_ID__';
/** The stand-in for one demo key, filled in by the sandbox: `__CONFORMANCE_API_KEY__`. */
export const keyStandIn = (name: CredentialKeyName) => `__${name}__`;

/** The variable each demo key goes by in the collection and the `.http` file. */
const KEY_VARIABLES: Record<CredentialKeyName, string> = {
  CONFORMANCE_API_KEY: 'apiKey',
  CONFORMANCE_NO_SCOPE_KEY: 'noScopeKey',
  CONFORMANCE_OTHER_CAMPAIGN_KEY: 'otherCampaignKey',
  CONFORMANCE_REVOKED_KEY: 'revokedKey',
  CONFORMANCE_EMPTY_CAMPAIGN_KEY: 'emptyCampaignKey',
};

/** A walk id no campaign has (a version-4 UUID of zeros). */
const UNKNOWN_WALK_ID = '00000000-0000-4000-8000-000000000000';

/** One request of the collection: which operation, which key, what it must answer. */
export interface PartnerRequest {
  name: string;
  /** `listWalks`, `getWalk`, or any other live operation of the spec (`operationRequests`). */
  operationId: string;
  /** The key variable sent as a bearer key; none sends no key at all. */
  key: CredentialKeyName | 'none';
  /** The key header: `Authorization: Bearer` (default) or `x-api-key`. */
  header?: 'x-api-key';
  query?: Record<string, string>;
  /** The walk id: the walk the list gave (default) or one no campaign has. */
  walk?: 'listed' | 'unknown';
  /** Sent as well, with the bearer key, to refuse both headers together. */
  secondKey?: CredentialKeyName;
  /** The documented answer: an error code (its status from the spec) or a success. */
  expect: { code: string; example?: string } | { status: 200; count?: 'empty' | 'limit'; example?: string };
}

/** The requests, in the order a run sends them: the list first, so the detail can take its id. */
export const PARTNER_REQUESTS: readonly PartnerRequest[] = [
  {
    name: 'List walks',
    operationId: 'listWalks',
    key: 'CONFORMANCE_API_KEY',
    query: { [LIMIT.name]: String(LIMIT.default) },
    expect: { status: 200, count: 'limit' },
  },
  {
    name: 'Get the first listed walk',
    operationId: 'getWalk',
    key: 'CONFORMANCE_API_KEY',
    expect: { status: 200 },
  },
  {
    name: 'List walks with the x-api-key header',
    operationId: 'listWalks',
    key: 'CONFORMANCE_API_KEY',
    header: 'x-api-key',
    query: { [LIMIT.name]: '5' },
    expect: { status: 200, count: 'limit' },
  },
  {
    name: 'A campaign with no walks: 200 and an empty list',
    operationId: 'listWalks',
    key: 'CONFORMANCE_EMPTY_CAMPAIGN_KEY',
    expect: { status: 200, count: 'empty', example: 'empty' },
  },
  {
    name: 'No key: 401 unauthorized',
    operationId: 'listWalks',
    key: 'none',
    expect: { code: 'unauthorized', example: 'missingKey' },
  },
  {
    name: 'Revoked key: 401 unauthorized',
    operationId: 'listWalks',
    key: 'CONFORMANCE_REVOKED_KEY',
    expect: { code: 'unauthorized', example: 'invalidKey' },
  },
  {
    name: 'Key without walks:read: 403 forbidden',
    operationId: 'listWalks',
    key: 'CONFORMANCE_NO_SCOPE_KEY',
    expect: { code: 'forbidden', example: 'forbidden' },
  },
  {
    name: 'limit out of range: 400 invalid_parameter',
    operationId: 'listWalks',
    key: 'CONFORMANCE_API_KEY',
    query: { [LIMIT.name]: String(LIMIT.maximum + 1) },
    expect: { code: 'invalid_parameter', example: 'limitOutOfRange' },
  },
  {
    name: 'Both key headers with different keys: 400 conflicting_credentials',
    operationId: 'listWalks',
    key: 'CONFORMANCE_API_KEY',
    secondKey: 'CONFORMANCE_OTHER_CAMPAIGN_KEY',
    expect: { code: 'conflicting_credentials', example: 'conflictingCredentials' },
  },
  {
    name: 'Unknown walk: 404 not_found',
    operationId: 'getWalk',
    key: 'CONFORMANCE_API_KEY',
    walk: 'unknown',
    expect: { code: 'not_found', example: 'notFound' },
  },
  {
    name: "Another campaign's key on this walk: 404 not_found",
    operationId: 'getWalk',
    key: 'CONFORMANCE_OTHER_CAMPAIGN_KEY',
    expect: { code: 'not_found', example: 'notFound' },
  },
];

/** A request resolved against the spec: its path, headers and the status it must get. */
interface ResolvedRequest {
  request: PartnerRequest;
  op: Operation;
  /** `/api/v1/walks/{{walkId}}`, with the query. */
  target: string;
  headers: Array<[string, string]>;
  status: number;
}

/** The live GET operations of the spec other than the walks', whose requests are made from the spec. */
function otherOperations(doc: OpenApiDocument): Operation[] {
  const walks = new Set(PARTNER_REQUESTS.map((request) => request.operationId));
  return operationsOf(doc).filter(
    (op) =>
      op.method === 'GET' &&
      !walks.has(op.operationId) &&
      (op.definition as Record<string, unknown>)['x-status'] !== 'planned',
  );
}

/** An item operation's id variable (`getListId`): the id the sandbox fills in from its own data. */
const idVariableOf = (op: Operation) => `${op.operationId}Id`;

/**
 * Every other live operation's requests: its success with the primary key and, when it documents a
 * 403, the key without its scope.
 */
function operationRequests(doc: OpenApiDocument): PartnerRequest[] {
  return otherOperations(doc).flatMap((op): PartnerRequest[] => [
    {
      name: op.definition.summary ?? op.operationId,
      operationId: op.operationId,
      key: 'CONFORMANCE_API_KEY',
      expect: { status: 200 },
    },
    ...(op.statuses.includes('403')
      ? [
          {
            name: `${op.operationId}, a key without ${op.requiredScopes.join(' and ')}: 403 forbidden`,
            operationId: op.operationId,
            key: 'CONFORMANCE_NO_SCOPE_KEY' as const,
            expect: { code: 'forbidden' },
          },
        ]
      : []),
  ]);
}

function resolveRequests(doc: OpenApiDocument): ResolvedRequest[] {
  const ops = new Map(operationsOf(doc).map((op) => [op.operationId, op]));
  // The walks' own requests stand only in a spec that has the walks (`--spec` may serve any other).
  const walkRequests = PARTNER_REQUESTS.filter((request) => ops.has(request.operationId));
  return [...walkRequests, ...operationRequests(doc)].map((request) => {
    const op = ops.get(request.operationId);
    if (!op) throw new Error(`spec/openapi.yaml has no operation ${request.operationId}`);
    const status = 'code' in request.expect ? statusOfError(request.expect.code) : 200;
    const prefer =
      request.expect.example !== undefined
        ? preferOf(doc, op, status, request.expect)
        : status === 200
          ? undefined
          : `code=${status}`;
    const walks = PARTNER_REQUESTS.includes(request);
    const walk =
      request.walk === 'unknown' ? UNKNOWN_WALK_ID : walks ? '{{walkId}}' : `{{${idVariableOf(op)}}}`;
    const path = op.path.replace(/\{[^}]+\}/, walk);
    const query = new URLSearchParams(request.query ?? {}).toString();
    return {
      request,
      op,
      target: query ? `${path}?${query}` : path,
      headers: [...keyHeaders(request), ...(prefer ? [['Prefer', prefer] as [string, string]] : [])],
      status,
    };
  });
}

/** The `Prefer` that makes the mock give this documented error; throws when the spec lacks it. */
function preferOf(doc: OpenApiDocument, op: Operation, status: number, expect: PartnerRequest['expect']) {
  const name = expect.example ?? '';
  const response = resolveRef<OpenAPIV3_1.ResponseObject>(doc, op.definition.responses?.[String(status)]);
  const example = response?.content?.['application/json']?.examples?.[name];
  const value = example ? resolveRef<OpenAPIV3_1.ExampleObject>(doc, example).value : undefined;
  const code = (value as { error?: { code?: string } } | undefined)?.error?.code;
  if (!value || ('code' in expect && code !== expect.code)) {
    throw new Error(
      `${op.operationId} documents no ${status} example ${name} that fits ${JSON.stringify(expect)}`,
    );
  }
  // A 200 example is asked for by name alone (the mock's README table says why).
  return status === 200 ? `example=${name}` : `code=${status}, example=${name}`;
}

function keyHeaders(request: PartnerRequest): Array<[string, string]> {
  if (request.key === 'none') return [];
  const key = `{{${KEY_VARIABLES[request.key]}}}`;
  const headers: Array<[string, string]> = [
    request.header === 'x-api-key' ? ['x-api-key', key] : ['Authorization', `Bearer ${key}`],
  ];
  if (request.secondKey) headers.push(['x-api-key', `{{${KEY_VARIABLES[request.secondKey]}}}`]);
  return headers;
}

/** The checks of a success of another operation: a list in `data`, or the item asked for. */
function operationChecks(doc: OpenApiDocument, op: Operation): string[] {
  const body = successSchema(doc, op);
  const data = body && schemaAt(doc, body, ['data']);
  if (data && (data.type === 'array' || 'items' in data)) {
    const counted = body && schemaAt(doc, body, ['meta', 'count']) !== undefined;
    return [
      "pm.test('data is a list', () => {",
      '  const body = pm.response.json();',
      "  pm.expect(body.data).to.be.an('array');",
      ...(counted ? ['  pm.expect(body.meta.count).to.equal(body.data.length);'] : []),
      '});',
    ];
  }
  return [
    "pm.test('is the item asked for', () => {",
    '  const { data } = pm.response.json();',
    `  pm.expect(String(data.id)).to.equal(String(pm.collectionVariables.get('${idVariableOf(op)}')));`,
    '});',
  ];
}

/** The checks of one request, as Postman test-script lines. */
function testLines(doc: OpenApiDocument, { request, status, op }: ResolvedRequest): string[] {
  const lines = [
    `pm.test('answers ${status}', () => pm.response.to.have.status(${status}));`,
    "pm.test('answers JSON in the envelope', () => {",
    "  pm.expect(pm.response.headers.get('Content-Type')).to.match(/^application\\/json/);",
    '  const body = pm.response.json();',
    `  pm.expect(body.ok).to.equal(${status === 200});`,
    `  pm.expect(body).to.have.property('${status === 200 ? 'data' : 'error'}');`,
    '});',
  ];
  const { expect } = request;
  if ('code' in expect) {
    lines.push(
      `pm.test('error.code is ${expect.code}', () => {`,
      '  const { error } = pm.response.json();',
      `  pm.expect(error.code).to.equal('${expect.code}');`,
      "  pm.expect(error.message).to.be.a('string').and.not.empty;",
      '});',
    );
  } else if (request.operationId === 'listWalks') {
    lines.push(...listChecks(request, expect.count));
  } else if (request.operationId !== 'getWalk') {
    lines.push(...operationChecks(doc, op));
  } else {
    lines.push(
      "pm.test('is the walk asked for, its stops in position order', () => {",
      '  const { data } = pm.response.json();',
      "  pm.expect(data.id).to.equal(pm.collectionVariables.get('walkId'));",
      '  data.stops.forEach((stop, i) => pm.expect(stop.position).to.equal(i + 1));',
      '});',
    );
  }
  return lines;
}

function listChecks(request: PartnerRequest, count: 'empty' | 'limit' | undefined): string[] {
  const limit = Number(request.query?.[LIMIT.name] ?? LIMIT.default);
  const lines = [
    "pm.test('meta.count is the number of walks in data', () => {",
    '  const body = pm.response.json();',
    "  pm.expect(body.data).to.be.an('array');",
    '  pm.expect(body.meta.count).to.equal(body.data.length);',
    count === 'empty'
      ? '  pm.expect(body.data).to.be.empty;'
      : `  pm.expect(body.data.length).to.be.within(1, ${limit});`,
    '});',
  ];
  if (request.operationId === 'listWalks' && request.header === undefined && count === 'limit') {
    // The detail requests read the first listed walk that has stops.
    lines.push(
      'const walk = pm.response.json().data.find((w) => w.count > 0) ?? pm.response.json().data[0];',
      "if (walk) pm.collectionVariables.set('walkId', walk.id);",
    );
  }
  return lines;
}

/** The Postman collection (v2.1): one folder for what succeeds, one for the documented errors. */
export function postmanCollectionOf(doc: OpenApiDocument): object {
  const resolved = resolveRequests(doc);
  const item = (r: ResolvedRequest) => ({
    name: r.request.name,
    request: {
      method: 'GET',
      header: r.headers.map(([key, value]) => ({ key, value })),
      url: postmanUrl(r.target),
      description: r.op.definition.summary,
    },
    event: [{ listen: 'test', script: { type: 'text/javascript', exec: testLines(doc, r) } }],
  });
  const walks = new Set(PARTNER_REQUESTS.map((request) => request.operationId));
  const others = otherOperations(doc);
  return {
    info: {
      name: `${doc.info.title} ${doc.info.version}`,
      description: [
        `Every request of the ${doc.info.title}, made from spec/openapi.yaml, with checks.`,
        'Import it with the environment the sandbox serves at /postman/environment.json (its origin',
        'and its demo keys). The error requests carry a Prefer header: the Prism mock then gives the',
        'same documented answer; the sandbox ignores it.',
      ].join(' '),
      schema: POSTMAN_SCHEMA,
    },
    // Postman sends no auth but the headers each request lists.
    auth: { type: 'noauth' },
    item: [
      {
        name: 'Walks',
        item: resolved.filter((r) => r.status === 200 && walks.has(r.op.operationId)).map(item),
      },
      ...(others.length > 0
        ? [
            {
              name: 'Other live operations',
              item: resolved.filter((r) => r.status === 200 && !walks.has(r.op.operationId)).map(item),
            },
          ]
        : []),
      { name: 'Errors', item: resolved.filter((r) => r.status !== 200).map(item) },
    ],
    variable: [
      { key: 'baseUrl', value: sandboxUrlOf(doc) },
      { key: 'walkId', value: SAMPLE_WALK_STAND_IN },
      ...others
        .filter((op) => op.path.includes('{'))
        .map((op) => ({ key: idVariableOf(op), value: exampleIdStandIn(op.operationId) })),
    ],
  };
}

function postmanUrl(target: string): object {
  const [path = '', query] = target.split('?');
  return {
    raw: `{{baseUrl}}${target}`,
    host: ['{{baseUrl}}'],
    path: path.split('/').filter(Boolean),
    ...(query ? { query: [...new URLSearchParams(query)].map(([key, value]) => ({ key, value })) } : {}),
  };
}

/** The environment: the sandbox's origin and its demo keys (stand-ins until the sandbox serves it). */
export function postmanEnvironmentOf(doc: OpenApiDocument): object {
  return {
    name: `${doc.info.title} sandbox`,
    values: [
      { key: 'baseUrl', value: sandboxUrlOf(doc), type: 'default', enabled: true },
      ...CREDENTIAL_KEY_NAMES.map((name) => ({
        key: KEY_VARIABLES[name],
        value: keyStandIn(name),
        type: 'secret',
        enabled: true,
      })),
    ],
    _postman_variable_scope: 'environment',
  };
}

/** The `.http` file: in-file variables, then one request per `###` block, named after what it shows. */
export function httpFileOf(doc: OpenApiDocument): string {
  const head = [
    `# ${doc.info.title} ${doc.info.version}: requests for the VS Code REST Client and the JetBrains`,
    '# HTTP Client, made from spec/openapi.yaml. Served by the sandbox (/requests.http) with its own',
    '# origin, its demo keys and one of its walks; put your own key in @apiKey for a deployment.',
    `@baseUrl = ${sandboxUrlOf(doc)}`,
    ...CREDENTIAL_KEY_NAMES.map((name) => `@${KEY_VARIABLES[name]} = ${keyStandIn(name)}`),
    `@walkId = ${SAMPLE_WALK_STAND_IN}`,
    ...otherOperations(doc)
      .filter((op) => op.path.includes('{'))
      .map((op) => `@${idVariableOf(op)} = ${exampleIdStandIn(op.operationId)}`),
    '',
  ];
  const blocks = resolveRequests(doc).map((r) =>
    [
      `### ${r.request.name} (expect ${r.status})`,
      `GET {{baseUrl}}${r.target}`,
      ...r.headers.filter(([name]) => name !== 'Prefer').map(([name, value]) => `${name}: ${value}`),
      '',
    ].join('\n'),
  );
  return `${head.join('\n')}\n${blocks.join('\n')}`;
}
