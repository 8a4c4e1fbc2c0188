import type { OpenAPIV3_1 } from 'openapi-types';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContractValidator, operationsOf, resolveRef } from '../../spec/contract.ts';
import { KEY_PREFIX, LIMIT } from '../../spec/facts.ts';
import { freePort } from '../../command-line/free-port.ts';
import { type RunningPrism, startPrism } from '../prism.ts';

const validator = createContractValidator();
const doc = validator.doc;
const KEY = { 'x-api-key': `${KEY_PREFIX}mockkeyonlypresenceischecked` };
const WALK_ID = '93bfb174-4e7a-4a37-9c9d-b45ef12d5123';

interface NamedExample {
  operationId: string;
  path: string;
  status: string;
  name: string;
  value: unknown;
}

/** Every named example of every documented response, as the spec writes it. */
function namedExamples(): NamedExample[] {
  const found: NamedExample[] = [];
  for (const op of operationsOf(doc)) {
    for (const status of op.statuses) {
      const response = resolveRef<OpenAPIV3_1.ResponseObject>(doc, op.definition.responses?.[status]);
      const examples = response.content?.['application/json']?.examples ?? {};
      for (const [name, example] of Object.entries(examples)) {
        const { value } = resolveRef<OpenAPIV3_1.ExampleObject>(doc, example);
        found.push({
          operationId: op.operationId,
          path: op.path.replace('{id}', WALK_ID),
          status,
          name,
          value,
        });
      }
    }
  }
  return found;
}

const examples = namedExamples();
const firstExample = (operationId: string, status: string) =>
  examples.find((e) => e.operationId === operationId && e.status === status);

let prism: RunningPrism;

beforeAll(async () => {
  prism = await startPrism({ port: await freePort() });
});

afterAll(async () => {
  await prism?.stop();
});

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await request(`${prism.baseUrl}${path}`, { headers });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    headers: response.headers,
    contentType: String(response.headers['content-type'] ?? ''),
    body: text ? (JSON.parse(text) as unknown) : undefined,
  };
}

describe('the live mock, with a key', () => {
  it.each([
    ['listWalks', '/api/v1/walks'],
    ['getWalk', `/api/v1/walks/${WALK_ID}`],
  ])('answers %s with its first example, valid against the contract', async (operationId, path) => {
    for (const headers of [KEY, { authorization: `Bearer ${KEY['x-api-key']}` }]) {
      const answer = await get(path, headers);
      expect(answer.status).toBe(200);
      expect(validator.validateResponse(operationId, 200, answer.body).errors).toEqual([]);
      expect(answer.body).toEqual(firstExample(operationId, '200')?.value);
    }
  });

  it('gives every named example of the spec on Prefer: code=…, example=…', async () => {
    expect(examples.length).toBeGreaterThan(10);
    for (const example of examples) {
      const answer = await get(example.path, {
        ...KEY,
        prefer: `code=${example.status}, example=${example.name}`,
      });
      const label = `${example.operationId} ${example.status} ${example.name}`;
      expect(answer.status, label).toBe(Number(example.status));
      expect(answer.contentType, label).toMatch(/^application\/json/);
      expect(answer.body, label).toEqual(example.value);
      expect(validator.validateResponse(example.operationId, example.status, answer.body).errors).toEqual([]);
    }
  });

  it.each([
    ['listWalks', '/api/v1/walks'],
    ['getWalk', `/api/v1/walks/${WALK_ID}`],
  ])('answers %s with the forbidden envelope on Prefer: code=403', async (operationId, path) => {
    const answer = await get(path, { ...KEY, prefer: 'code=403' });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(validator.validateResponse(operationId, 403, answer.body).errors).toEqual([]);
  });

  it('answers the detail with the not_found envelope on Prefer: code=404', async () => {
    const answer = await get(`/api/v1/walks/${WALK_ID}`, { ...KEY, prefer: 'code=404' });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual(firstExample('getWalk', '404')?.value);
    expect(answer.body).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('gives the empty list on Prefer: example=empty', async () => {
    const answer = await get('/api/v1/walks', { ...KEY, prefer: 'example=empty' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ok: true, data: [], meta: { count: 0 } });
  });

  it.each([`${LIMIT.minimum - 1}`, `${LIMIT.maximum + 1}`, '500', '-1', 'abc', '1&limit=2'])(
    'answers limit=%s with the 400 invalid_parameter envelope',
    async (limit) => {
      const answer = await get(`/api/v1/walks?limit=${limit}`, KEY);
      expect(answer.status).toBe(400);
      expect(answer.contentType).toMatch(/^application\/json/);
      expect(answer.body).toMatchObject({ ok: false, error: { code: 'invalid_parameter' } });
      expect(validator.validateResponse('listWalks', 400, answer.body).errors).toEqual([]);
    },
  );

  it('sends no CORS headers, even to a browser origin (D-CORS)', async () => {
    const answer = await get('/api/v1/walks', { ...KEY, origin: 'https://partner.example' });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});

describe('the live mock, without a key', () => {
  it.each([
    ['listWalks', '/api/v1/walks'],
    ['getWalk', `/api/v1/walks/${WALK_ID}`],
  ])('answers %s with 401 in our error envelope, not problem+json', async (operationId, path) => {
    const answer = await get(path);
    expect(answer.status).toBe(401);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect(validator.validateResponse(operationId, 401, answer.body).errors).toEqual([]);
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
  });
});
