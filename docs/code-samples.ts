/**
 * Request samples for the reference page, made from the spec at build time: for every operation a
 * curl line, a JavaScript `fetch` and a Python `requests` call against the spec's first server (the
 * sandbox), with the operation's own path, example parameters and first security scheme. They are
 * injected as `x-codeSamples`, which Redoc shows beside each operation; nothing here is kept in the spec.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { type OpenApiDocument, type Operation, operationsOf, resolveRef } from '../spec/contract.ts';
import { LIMIT } from '../spec/facts.ts';

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/**
 * The languages of the samples, in the order the page offers them. `lang` is one Redoc knows (it
 * picks the highlighting); the page's language picker is made from this list (docs/build.ts).
 */
export const SAMPLE_LANGUAGES = [
  { lang: 'curl', label: 'curl' },
  { lang: 'JavaScript', label: 'JavaScript (fetch)' },
  { lang: 'Python', label: 'Python (requests)' },
] as const;

/** The samples' stand-in for a key: an environment variable, so no key is ever pasted into code. */
export const KEY_VARIABLE = 'API_KEY';
/** Where the key comes from, as comment lines short enough for the page's code panel. */
const KEY_NOTE = [
  `${KEY_VARIABLE} holds your key. The sandbox prints its demo keys when it starts`,
  '(npm start); CONFORMANCE_API_KEY is the one these samples need.',
];

/** What every sample sends: one URL, one credential header, the query as pairs. */
export interface SampleRequest {
  /** Server URL and path, path parameters filled in, no query. */
  url: string;
  query: Array<[string, string]>;
  keyHeader: { name: string; scheme: 'bearer' | 'plain' };
  /** One comment line per path parameter: the example stands in for a real value. */
  notes: string[];
  /** What the sample prints against the sandbox, said on the page (`printedAnswerOf`). */
  answer: string;
}

/** The sandbox's address: the spec's first server, which must be a concrete URL. */
export function sandboxUrlOf(doc: OpenApiDocument): string {
  const url = doc.servers?.[0]?.url;
  if (!url || url.includes('{')) {
    throw new Error("spec/openapi.yaml: the first server must be the sandbox's concrete URL");
  }
  return url.replace(/\/$/, '');
}

export function sampleRequestOf(doc: OpenApiDocument, op: Operation): SampleRequest {
  let path = op.path;
  const query: Array<[string, string]> = [];
  const notes: string[] = [];
  for (const ref of op.definition.parameters ?? []) {
    const parameter = resolveRef<OpenAPIV3_1.ParameterObject>(doc, ref);
    const example = exampleOf(doc, parameter, op);
    if (parameter.in === 'path') {
      path = path.replace(`{${parameter.name}}`, encodeURIComponent(example));
      notes.push(
        `The ${parameter.name} in the URL is a demo ${itemNounOf(op)} (the sandbox's /docs page fills in`,
        `one of its own); in your code, ${firstSentence(parameter.description ?? '')}`,
      );
    }
    if (parameter.in === 'query') query.push([parameter.name, example]);
  }
  const answer = printedAnswerOf(op, query);
  return { url: `${sandboxUrlOf(doc)}${path}`, query, keyHeader: keyHeaderOf(doc, op), notes, answer };
}

/**
 * The answer a sample gets from the sandbox, as its last comment line says it: the success envelope,
 * printed as JSON. A collection names how many of its items `limit` brings, by the collection's last
 * path segment (`[50 walks]`: the demo campaign has more than 200); an item says the operation's summary.
 */
export function printedAnswerOf(op: Operation, query: ReadonlyArray<readonly [string, string]>): string {
  const limit = query.find(([name]) => name === LIMIT.name)?.[1];
  if (limit !== undefined && !op.path.endsWith('}')) {
    const items = op.path.split('/').pop() ?? 'items';
    return `Prints the 200 answer: {"ok": true, "data": [${limit} ${items}], "meta": {"count": ${limit}}}.`;
  }
  const summary = (op.definition.summary ?? `the ${itemNounOf(op)}`).replace(/^Get /, '');
  return `Prints the 200 answer: {"ok": true, "data": {${summary}}}.`;
}

/** What one item of the operation's collection is called: its collection's last segment, singular. */
function itemNounOf(op: Operation): string {
  const segments = op.path.split('/').filter((segment) => segment !== '' && !segment.startsWith('{'));
  return (segments.pop() ?? 'item').replace(/s$/, '');
}

/** The first sentence of a description, Markdown code marks dropped, to follow a colon. */
function firstSentence(description: string): string {
  const text = description.replace(/`/g, '').replace(/\s+/g, ' ').trim();
  const sentence = /^.*?\.(?=\s|$)/.exec(text)?.[0] ?? text;
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

function exampleOf(doc: OpenApiDocument, parameter: OpenAPIV3_1.ParameterObject, op: Operation): string {
  const schema = parameter.schema ? resolveRef<OpenAPIV3_1.SchemaObject>(doc, parameter.schema) : {};
  const example: unknown =
    parameter.example ??
    schema.examples?.[0] ??
    schema.default ??
    (parameter.in === 'path' ? collectionExampleId(doc, op, parameter.name) : undefined);
  if (example === undefined) {
    throw new Error(
      `${op.operationId}: parameter ${parameter.name} has no example to show in the request samples, ` +
        'and its collection lists no example item with that field',
    );
  }
  return String(example);
}

/**
 * An item path's id taken from its collection's own example answer (the first item's field of the
 * parameter's name): an endpoint made live needs no example of its own for the page's samples.
 */
function collectionExampleId(doc: OpenApiDocument, op: Operation, name: string): unknown {
  const collectionPath = op.path.slice(0, op.path.lastIndexOf(`/{${name}}`));
  const collection = operationsOf(doc).find((candidate) => candidate.path === collectionPath);
  const ok = collection?.definition.responses?.['200'];
  if (!ok) return undefined;
  const response = resolveRef<OpenAPIV3_1.ResponseObject>(doc, ok);
  for (const media of Object.values(response.content ?? {})) {
    const examples = [
      media.example,
      ...Object.values(media.examples ?? {}).map(
        (ref) => resolveRef<OpenAPIV3_1.ExampleObject>(doc, ref).value,
      ),
    ];
    for (const value of examples) {
      const first = (value as { data?: unknown } | undefined)?.data;
      const item = Array.isArray(first) ? (first[0] as Record<string, unknown> | undefined) : undefined;
      if (item?.[name] !== undefined) return item[name];
    }
  }
  return undefined;
}

/** The header of the operation's first security scheme (the spec's own order of preference). */
function keyHeaderOf(doc: OpenApiDocument, op: Operation): SampleRequest['keyHeader'] {
  const requirement = (op.definition.security ?? doc.security ?? [])[0];
  const name = requirement ? Object.keys(requirement)[0] : undefined;
  const scheme = name
    ? resolveRef<OpenAPIV3_1.SecuritySchemeObject>(doc, doc.components?.securitySchemes?.[name])
    : undefined;
  if (scheme?.type === 'http' && scheme.scheme.toLowerCase() === 'bearer') {
    return { name: 'Authorization', scheme: 'bearer' };
  }
  if (scheme?.type === 'apiKey' && scheme.in === 'header') return { name: scheme.name, scheme: 'plain' };
  throw new Error(`${op.operationId}: its first security scheme is neither a bearer nor a header key`);
}

function commentLines(request: SampleRequest): string[] {
  return [...KEY_NOTE, ...request.notes, request.answer];
}

function urlWithQuery(request: SampleRequest): string {
  if (request.query.length === 0) return request.url;
  return `${request.url}?${new URLSearchParams(request.query).toString()}`;
}

function curlSample(request: SampleRequest): string {
  const value = request.keyHeader.scheme === 'bearer' ? `Bearer $${KEY_VARIABLE}` : `$${KEY_VARIABLE}`;
  return [
    ...commentLines(request).map((line) => `# ${line}`),
    `curl -sS --compressed -H "${request.keyHeader.name}: ${value}" \\`,
    `  '${urlWithQuery(request)}'`,
  ].join('\n');
}

function fetchSample(request: SampleRequest): string {
  const key = `process.env.${KEY_VARIABLE}`;
  const value = request.keyHeader.scheme === 'bearer' ? `\`Bearer \${${key}}\`` : key;
  const name = /^[A-Za-z_$][\w$]*$/.test(request.keyHeader.name)
    ? request.keyHeader.name
    : `'${request.keyHeader.name}'`;
  return [
    ...commentLines(request).map((line) => `// ${line}`),
    `const url = '${urlWithQuery(request)}';`,
    'const response = await fetch(url, {',
    `  headers: { ${name}: ${value} },`,
    '});',
    'const body = await response.json();',
    'if (!body.ok) {',
    // The error envelope's code is what a client branches on; the message is for people.
    '  throw new Error(`${response.status} ${body.error.code}: ${body.error.message}`);',
    '}',
    'console.log(JSON.stringify(body, null, 2));',
  ].join('\n');
}

function requestsSample(request: SampleRequest): string {
  const key = `os.environ['${KEY_VARIABLE}']`;
  const value = request.keyHeader.scheme === 'bearer' ? `f"Bearer {${key}}"` : key;
  const params = request.query.map(([name, example]) => `${JSON.stringify(name)}: ${pythonLiteral(example)}`);
  return [
    ...commentLines(request).map((line) => `# ${line}`),
    'import json',
    'import os',
    '',
    'import requests',
    '',
    'response = requests.get(',
    `    "${request.url}",`,
    ...(params.length > 0 ? [`    params={${params.join(', ')}},`] : []),
    `    headers={"${request.keyHeader.name}": ${value}},`,
    '    timeout=10,',
    ')',
    'body = response.json()',
    'if not body["ok"]:',
    '    error = body["error"]',
    "    raise RuntimeError(f\"{response.status_code} {error['code']}: {error['message']}\")",
    'print(json.dumps(body, indent=2, ensure_ascii=False))',
  ].join('\n');
}

function pythonLiteral(value: string): string {
  return /^-?\d+$/.test(value) ? value : JSON.stringify(value);
}

export function codeSamplesOf(doc: OpenApiDocument, op: Operation): CodeSample[] {
  const request = sampleRequestOf(doc, op);
  const [curl, fetch, requests] = SAMPLE_LANGUAGES;
  return [
    { ...curl, source: curlSample(request) },
    { ...fetch, source: fetchSample(request) },
    { ...requests, source: requestsSample(request) },
  ];
}

/** A copy of the document with `x-codeSamples` on every operation, for the docs tool to render. */
export function withCodeSamples(doc: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(doc);
  for (const op of operationsOf(copy)) {
    (op.definition as Record<string, unknown>)['x-codeSamples'] = codeSamplesOf(copy, op);
  }
  return copy;
}
