import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContractValidator, loadSpec, operationsOf } from '../../spec/contract.ts';
import { KEY_PREFIX, PLANNED_SPEC_PATH } from '../../spec/facts.ts';
import { freePort } from '../../command-line/free-port.ts';
import { type RunningPrism, startPrism } from '../prism.ts';

const planned = createContractValidator(loadSpec(PLANNED_SPEC_PATH));
const KEY = { 'x-api-key': `${KEY_PREFIX}mockkeyonlypresenceischecked` };

let prism: RunningPrism;

beforeAll(async () => {
  prism = await startPrism({ spec: 'planned', port: await freePort() });
});

afterAll(async () => {
  await prism?.stop();
});

describe('the planned mock', () => {
  const operations = operationsOf(planned.doc);

  it('answers every planned endpoint with its example, valid against the planned spec', async () => {
    expect(operations.length).toBeGreaterThanOrEqual(6);
    for (const op of operations) {
      const response = await request(`${prism.baseUrl}${op.path.replace('{id}', 'planned-id-1')}`, {
        headers: KEY,
      });
      const body = await response.body.json();
      expect(response.statusCode, op.operationId).toBe(200);
      expect(planned.validateResponse(op.operationId, 200, body).errors, op.operationId).toEqual([]);
    }
  });

  it('serves the planned spec alone: the live walks endpoint is not there', async () => {
    const response = await request(`${prism.baseUrl}/api/v1/walks`, { headers: KEY });
    await response.body.dump();
    expect(response.statusCode).toBe(404);
  });
});
