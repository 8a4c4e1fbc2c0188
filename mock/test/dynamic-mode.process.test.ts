/**
 * Prism's dynamic mode (`Prefer: dynamic=true`): bodies generated from the schemas, not the
 * examples. Each must be valid against the contract: the `web_url`/`app_link` patterns admit only
 * what a `uri` is made of, so what a pattern-driven generator draws is a URI; and extra properties,
 * which the envelopes refuse, are not invented (`--json-schema-faker-fillProperties=false`).
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContractValidator } from '../../spec/contract.ts';
import { KEY_PREFIX } from '../../spec/facts.ts';
import { freePort } from '../../command-line/free-port.ts';
import { type RunningPrism, startPrism } from '../prism.ts';

const validator = createContractValidator();
/** Draws per endpoint: each generates new values, so a pattern that can yield a non-URI shows up. */
const DRAWS = 12;
let prism: RunningPrism;

beforeAll(async () => {
  prism = await startPrism({ port: await freePort() });
});

afterAll(async () => {
  await prism?.stop();
});

describe('the mock in dynamic mode', { timeout: 60_000 }, () => {
  it.each([
    ['listWalks', '/api/v1/walks'],
    ['getWalk', '/api/v1/walks/93bfb174-4e7a-4a37-9c9d-b45ef12d5123'],
  ])('answers %s with generated bodies valid against the contract', async (operationId, path) => {
    const seen = new Set<string>();
    for (let draw = 0; draw < DRAWS; draw++) {
      const response = await request(`${prism.baseUrl}${path}`, {
        headers: { 'x-api-key': `${KEY_PREFIX}dynamicmodekey`, prefer: 'dynamic=true' },
      });
      const text = await response.body.text();
      expect(response.statusCode, text).toBe(200);
      const body = JSON.parse(text) as unknown;
      expect(validator.validateResponse(operationId, 200, body).errors).toEqual([]);
      seen.add(text);
    }
    // Generated, not the example every time.
    expect(seen.size).toBeGreaterThan(1);
  });
});
