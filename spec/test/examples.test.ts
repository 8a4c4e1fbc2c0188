import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { createContractValidator, loadSpec, operationsOf, resolveRef } from '../contract.ts';
import { LIVE_SPEC_PATH, PLANNED_SPEC_PATH } from '../facts.ts';

interface ExampleCase {
  label: string;
  operationId: string;
  status: string;
  value: unknown;
}

function examplesOf(path: string): ExampleCase[] {
  const doc = loadSpec(path);
  const cases: ExampleCase[] = [];
  for (const op of operationsOf(doc)) {
    for (const status of op.statuses) {
      const response = resolveRef<OpenAPIV3_1.ResponseObject>(doc, op.definition.responses?.[status]);
      for (const [media, content] of Object.entries(response.content ?? {})) {
        for (const [name, example] of Object.entries(content.examples ?? {})) {
          const { value } = resolveRef<OpenAPIV3_1.ExampleObject>(doc, example);
          cases.push({
            label: `${op.operationId} ${status} ${media} ${name}`,
            operationId: op.operationId,
            status,
            value,
          });
        }
      }
    }
  }
  return cases;
}

describe.each([
  ['live', LIVE_SPEC_PATH],
  ['planned', PLANNED_SPEC_PATH],
])('every example of the %s spec', (_name, path) => {
  const validator = createContractValidator(loadSpec(path));
  const cases = examplesOf(path);

  it('exists for every response with a body', () => {
    const doc = loadSpec(path);
    for (const op of operationsOf(doc)) {
      for (const status of op.statuses) {
        const response = resolveRef<OpenAPIV3_1.ResponseObject>(doc, op.definition.responses?.[status]);
        for (const [media, content] of Object.entries(response.content ?? {})) {
          expect(
            Object.keys(content.examples ?? {}),
            `${op.operationId} ${status} ${media}`,
          ).not.toHaveLength(0);
        }
      }
    }
  });

  it.each(cases.map((c) => [c.label, c]))('%s validates against its schema', (_label, c) => {
    const result = validator.validateResponse(c.operationId, c.status, c.value);
    expect(result.errors).toEqual([]);
  });
});

describe('the validators compiled from the spec', () => {
  const validator = createContractValidator();

  it('refuse a walk summary with a missing counts key', () => {
    const summary = {
      id: '93bfb174-4e7a-4a37-9c9d-b45ef12d5123',
      name: 'x',
      lat: null,
      lng: null,
      count: 0,
      counts: { not_visited: 0 },
      web_url: 'https://a.example/dashboard/s/walks/93bfb174-4e7a-4a37-9c9d-b45ef12d5123',
      app_link: 'https://a.example/open/s/walks/93bfb174-4e7a-4a37-9c9d-b45ef12d5123',
    };
    const result = validator.validateSchema('WalkSummary', summary);
    expect(result.valid).toBe(false);
    expect(result.errors.join('\n')).toContain("must have required property 'visited_home_answered'");
  });

  it('flag an undocumented field when closed, and tolerate it when open', () => {
    const body = { ok: true, data: [], meta: { count: 0 }, next: 'x' };
    expect(validator.validateResponse('listWalks', 200, body).errors).toEqual([
      '(body) must NOT have unevaluated properties (next)',
    ]);
    const open = createContractValidator(undefined, { objects: 'open' });
    expect(open.validateResponse('listWalks', 200, body).valid).toBe(true);
    expect(open.validateResponse('listWalks', 200, { ok: true, data: [] }).valid).toBe(false);
  });

  it('refuse an error envelope without a message', () => {
    const result = validator.validateResponse('getWalk', 404, { ok: false, error: { code: 'not_found' } });
    expect(result.valid).toBe(false);
  });
});
