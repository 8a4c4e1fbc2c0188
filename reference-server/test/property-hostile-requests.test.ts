/**
 * Thousands of generated requests against the in-process server: paths from a grammar of real and
 * hostile segments, random queries, header combinations of demo keys and garbage, random methods
 * and bodies. Whatever arrives, the answer is never a 5xx, every error is the envelope, every
 * success is the success envelope and valid against the contract, no key is ever echoed, the
 * server keeps answering and `Object.prototype` stays clean.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCredentials } from '../../fixtures/index.ts';
import { loadSpec } from '../../spec/contract.ts';
import { PLANNED_SPEC_PATH, KEY_PREFIX } from '../../spec/facts.ts';
import { type Answer, contract, datasetFor, startTestServer, type TestServer } from './harness.ts';

const dataset = datasetFor();
const demoKeys = Object.values(demoCredentials({ seed: dataset.seed }));
const walkIds = (campaignIndex: number, state: string) =>
  dataset.walks
    .filter((walk) => walk.campaignId === dataset.campaigns[campaignIndex]?.id && walk.state === state)
    .map((walk) => walk.id)
    .slice(0, 20);

/** Keys made up during the run: none may come back either. */
const madeUpKeys = new Set<string>();
const madeUpKey = fc
  .string({
    unit: fc.constantFrom(...'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'),
    minLength: 20,
    maxLength: 60,
  })
  .map((body) => {
    const key = `${KEY_PREFIX}${body}`;
    madeUpKeys.add(key);
    return key;
  });
const anyKey = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...demoKeys) },
  { weight: 1, arbitrary: madeUpKey },
);

/** Visible ASCII: what `http.request` lets through in a path or a header value. */
const printable = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });

const HOSTILE_SEGMENTS = [
  '',
  '.',
  '..',
  '%2e%2e',
  '%2E%2E',
  '%2F',
  '%5C',
  '%00',
  '%',
  '%Z',
  '%ZZ',
  '%E0%A4%A',
  '%C0%AF',
  '%FF',
  '%F0%9F%98%80',
  '%E2%80%AE',
  '%20',
  ';',
  ';x=1',
  'API',
  'V1',
  'WALKS',
  'Walks',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'openapi.yaml',
  'docs',
  '*',
  '~',
  '@',
];
const walkId = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...walkIds(0, 'active')) },
  { weight: 1, arbitrary: fc.constantFrom(...walkIds(0, 'active')).map((id) => id.toUpperCase()) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...walkIds(1, 'active'), ...walkIds(0, 'archived'), ...walkIds(0, 'deleted')),
  },
  { weight: 1, arbitrary: fc.uuid() },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 8_000 }).map((n) => 'a'.repeat(n)) },
  { weight: 1, arbitrary: anyKey },
  { weight: 2, arbitrary: printable(60).filter((text) => !text.includes('?') && !text.includes('#')) },
);
const segment = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('api', 'v1', 'walks', 'lists', 'sms', 'campaigns', 'signs') },
  { weight: 2, arbitrary: walkId },
);
const plannedPaths = Object.keys(loadSpec(PLANNED_SPEC_PATH).paths ?? {}).map((template) =>
  template.replace(/\{[^}]+\}/g, '6f1c2b9e-8a77-4d0e-9a3b-2c4d5e6f7a8b'),
);
const path = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('/api/v1/walks', '/api/v1/walks/') },
  {
    weight: 5,
    arbitrary: fc
      .tuple(walkId, fc.constantFrom('', '/', '//', '/stops'))
      .map(([id, tail]) => `/api/v1/walks/${id}${tail}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.array(segment, { maxLength: 5 }), fc.boolean())
      .map(([parts, slash]) => `/${parts.join('/')}${slash ? '/' : ''}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('/openapi.yaml', '/docs', '/', '//api/v1/walks', ...plannedPaths) },
);

const queryName = fc.oneof(
  { weight: 4, arbitrary: fc.constant('limit') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'limit[]',
      'limit[a]',
      'limit[0]',
      '__proto__[x]',
      '__proto__',
      'constructor[prototype][x]',
      'constructor[prototype]',
      '__proto__.polluted',
      'cursor',
      'api_key',
      '%ZZ',
      '',
    ),
  },
  { weight: 1, arbitrary: printable(12).filter((text) => !/[#&=]/.test(text)) },
);
const queryValue = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 260 }).map(String) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '1e3',
      '0x10',
      'Infinity',
      '-Infinity',
      'NaN',
      '',
      '007',
      '5.0',
      '+5',
      '%205',
      '1%00',
      '%',
      '%ZZ',
      `1${'0'.repeat(300)}`,
      'polluted',
    ),
  },
  { weight: 1, arbitrary: anyKey },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map(encodeURIComponent) },
);
const query = fc
  .array(fc.tuple(queryName, fc.option(queryValue, { nil: undefined })), { maxLength: 4 })
  .map((pairs) => pairs.map(([name, value]) => (value === undefined ? name : `${name}=${value}`)).join('&'));

const authorization = fc.oneof(
  { weight: 4, arbitrary: anyKey.map((key) => `Bearer ${key}`) },
  { weight: 1, arbitrary: anyKey.map((key) => `bearer  ${key}`) },
  { weight: 1, arbitrary: anyKey.map((key) => `BEARER ${key}`) },
  { weight: 1, arbitrary: anyKey.map((key) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`) },
  { weight: 1, arbitrary: anyKey.map((key) => `Token ${key}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'Bearer',
      '',
      'Basic dXNlcjpwYXNz',
      `Bearer ${KEY_PREFIX}${'A'.repeat(6_144)}`,
    ),
  },
  { weight: 1, arbitrary: printable(80).map((text) => `Bearer ${text}`) },
);
const apiKeyHeader = fc.oneof(
  { weight: 4, arbitrary: anyKey },
  { weight: 1, arbitrary: fc.constantFrom('', KEY_PREFIX, `${KEY_PREFIX}${'b'.repeat(6_144)}`) },
  { weight: 1, arbitrary: printable(80) },
);
const headers = fc
  .record(
    {
      authorization,
      'x-api-key': apiKeyHeader,
      accept: fc.constantFrom('application/xml', 'text/html', '*/*', 'application/json', 'image/png;q=1'),
      'if-none-match': fc.constantFrom('*', '"stale"', 'W/"x"', 'garbage'),
      origin: fc.constantFrom('https://evil.example', 'null'),
      'content-type': fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'),
      expect: fc.constantFrom('100-continue', 'teapot'),
    },
    { requiredKeys: [] },
  )
  .map((record) => record as OutgoingHttpHeaders);

const method = fc.oneof(
  { weight: 10, arbitrary: fc.constant('GET') },
  { weight: 1, arbitrary: fc.constantFrom('HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE') },
);
const body = fc.option(
  fc.oneof(
    { weight: 5, arbitrary: fc.string({ maxLength: 200 }) },
    /** A 100 KB body, shown as its size in a counterexample. */
    { weight: 1, arbitrary: fc.constant(100_000) },
    { weight: 1, arbitrary: anyKey.map((key) => JSON.stringify({ key })) },
  ),
  { nil: undefined, freq: 5 },
);

const request = fc.record({ method, path, query: fc.option(query, { nil: undefined }), headers, body });
type GeneratedRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

let server: TestServer;
let prototypeBefore: string[];
beforeAll(async () => {
  prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
  server = await startTestServer();
});
afterAll(() => server.close());

/** Bounded in count and in time; a slow machine gets fewer runs, never a hang. */
const NUM_RUNS = 2_000;
const TIME_CAP_MS = 45_000;
const MIN_RUNS = 400;

describe('generated hostile requests (property)', () => {
  it('never get a 5xx, an answer outside the envelope or a key echoed back', async () => {
    const statuses = new Map<number, number>();
    const result = await fc.check(
      fc.asyncProperty(request, async (generated) => {
        const target =
          generated.query === undefined ? generated.path : `${generated.path}?${generated.query}`;
        const body =
          typeof generated.body === 'number' ? '{"limit":'.padEnd(generated.body, 'x') : generated.body;
        // Framed like any real client frames a body (Node would send a GET body unframed).
        const framing = body === undefined ? {} : { 'content-length': Buffer.byteLength(body) };
        const answer = await server.send(
          generated.method,
          target,
          { ...generated.headers, ...framing },
          body,
        );
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        checkAnswer(generated, answer);
      }),
      { numRuns: NUM_RUNS, interruptAfterTimeLimit: TIME_CAP_MS, markInterruptAsFailure: false },
    );
    if (result.failed) throw new Error(`${fc.defaultReportMessage(result)}\n${String(result.errorInstance)}`);
    expect(result.numRuns).toBeGreaterThanOrEqual(MIN_RUNS);
    // The grammar reaches the interesting answers, not just one kind of refusal.
    for (const status of [200, 400, 401, 404, 405]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
    expect(madeUpKeys.size).toBeGreaterThan(0);
  }, 120_000);

  it('leaves the server answering and Object.prototype untouched', async () => {
    const answer = await server.get('/api/v1/walks?limit=2', { authorization: `Bearer ${demoKeys[0]}` });
    expect(answer.status).toBe(200);
    expect(contract.validateResponse('listWalks', 200, answer.body).errors).toEqual([]);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

const SPEC_OR_PAGE = /^\/(openapi\.yaml|docs)\/?$/;

function checkAnswer(generated: GeneratedRequest, answer: Answer): void {
  const label = `${generated.method} ${generated.path.slice(0, 120)} → ${answer.status}`;
  if (answer.status < 200 || answer.status >= 500) throw new Error(`${label}: status out of bounds`);
  const exposed = JSON.stringify(answer.headers) + answer.text;
  for (const key of [...demoKeys, ...madeUpKeys]) {
    if (exposed.includes(key.slice(KEY_PREFIX.length))) throw new Error(`${label}: a key came back`);
  }
  if (generated.method === 'HEAD' || answer.status === 304) {
    if (answer.text !== '') throw new Error(`${label}: a body on HEAD or 304`);
    return;
  }
  if (answer.status === 200 && SPEC_OR_PAGE.test(generated.path)) return;
  if (answer.status === 302 && generated.path === '/' && answer.headers.location === '/docs') return;
  // The reference page's own links (`/walks`, `/section/…`) lead to the page at that section.
  if (answer.status === 302 && answer.headers.location === `/docs#${generated.path}`) return;
  if (answer.headers['content-type'] !== 'application/json; charset=utf-8') {
    throw new Error(`${label}: content type ${String(answer.headers['content-type'])}`);
  }
  if (answer.status >= 400) {
    const validation = contract.validateSchema('ErrorEnvelope', answer.body);
    if (!validation.valid)
      throw new Error(`${label}: not the error envelope: ${validation.errors.join('; ')}`);
    return;
  }
  const data = (answer.body as { data?: unknown } | undefined)?.data;
  const operation = Array.isArray(data) ? 'listWalks' : 'getWalk';
  const validation = contract.validateResponse(operation, answer.status, answer.body);
  if (!validation.valid) throw new Error(`${label}: violates ${operation}: ${validation.errors.join('; ')}`);
  if (Array.isArray(data)) {
    const { meta } = answer.body as { meta: { count: number } };
    if (meta.count !== data.length || data.length > 200)
      throw new Error(`${label}: meta.count or length wrong`);
  }
}
