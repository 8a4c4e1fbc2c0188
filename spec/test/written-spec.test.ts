/**
 * Holds spec/openapi.yaml to the facts of the written specification. The facts are read from the
 * written spec's tables into `spec/written-spec-facts.json`, committed, so these tests run on any
 * clone; where `../shared` is beside the clone, the committed facts are compared with it too.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { loadSpec, operationsOf, resolveRef, stopStatusesOf } from '../contract.ts';
import {
  CREDENTIAL_NAMES,
  ERROR_STATUSES,
  KEY_PREFIX,
  LIMIT,
  PLANNED_SPEC_PATH,
  SCOPES,
  WALKS_READ_SCOPE,
} from '../facts.ts';
import { committedWrittenFacts, sharedWrittenFacts } from './written-spec-facts.ts';

const written = committedWrittenFacts();
const doc = loadSpec();
const schemas = doc.components?.schemas ?? {};

/** The live operations the written spec plans: made live as CONTRIBUTING's recipe says, GET only. */
const madeLive = operationsOf(doc).filter((op) => written.plannedEndpoints.includes(op.path));

describe('spec/openapi.yaml states the written spec (facts in spec/written-spec-facts.json)', () => {
  it('has the written live endpoints, GET only, under /api/v1, and otherwise only planned ones made live', () => {
    const ops = operationsOf(doc).map((op) => `${op.method} ${op.path}`);
    const planned = new Set(madeLive.map((op) => `${op.method} ${op.path}`));
    expect(ops.filter((op) => !planned.has(op))).toEqual(written.liveEndpoints);
    expect(madeLive.every((op) => op.method === 'GET')).toBe(true);
  });

  it('lists the eight stop statuses in the written order, with their meanings', () => {
    expect(written.stopStatuses).toHaveLength(8);
    expect(stopStatusesOf(doc)).toEqual(written.stopStatuses.map(([value]) => value));
    const descriptions = (schemas.StopStatus as Record<string, unknown>)['x-enum-descriptions'];
    expect(descriptions).toEqual(Object.fromEntries(written.stopStatuses));
  });

  it('requires exactly the written fields of a walk summary, detail and stop', () => {
    for (const [name, fields] of Object.entries(written.fields)) {
      const schema = schemas[name] as OpenAPIV3_1.SchemaObject;
      expect(schema.required, name).toEqual(fields);
      expect(Object.keys(schema.properties ?? {}), name).toEqual(fields);
      expect(schema.additionalProperties, `${name} is closed`).toBe(false);
    }
  });

  it('requires every status key in counts and nothing else', () => {
    const counts = schemas.StatusCounts as OpenAPIV3_1.SchemaObject;
    expect(counts.required).toEqual(stopStatusesOf(doc));
    expect(counts.additionalProperties).toBe(false);
  });

  it('bounds limit as the written limits table says', () => {
    const limit = resolveRef<OpenAPIV3_1.ParameterObject>(doc, { $ref: '#/components/parameters/Limit' });
    expect(limit).toMatchObject({ name: 'limit', in: 'query', required: false });
    expect(limit.schema).toMatchObject({ type: 'integer', ...written.limit });
    expect(LIMIT).toEqual({ name: 'limit', ...written.limit });
  });

  it('accepts the key in Authorization: Bearer or x-api-key, either one alone', () => {
    expect(written.keyHeaders).toEqual([
      '`Authorization` with the value `Bearer <API_KEY>`',
      '`x-api-key` with the value `<API_KEY>`',
    ]);
    expect(doc.components?.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: `${written.keyPrefix}<KEY_BODY>` },
      apiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key' },
    });
    for (const op of operationsOf(doc)) {
      expect(op.definition.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }]);
    }
    expect(KEY_PREFIX).toBe(written.keyPrefix);
  });

  it('needs the walks:read scope on the walks operations, and one written scope on every other, stated and described', () => {
    expect(written.scopes.find(([scope]) => scope === WALKS_READ_SCOPE)?.[1]).toBe(
      'The walks endpoints (live).',
    );
    expect([...SCOPES]).toEqual(written.scopes.map(([scope]) => scope));
    for (const op of operationsOf(doc)) {
      const [scope, ...more] = op.requiredScopes;
      if (!written.plannedEndpoints.includes(op.path)) expect(scope).toBe(WALKS_READ_SCOPE);
      expect([SCOPES.includes(scope as (typeof SCOPES)[number]), more]).toEqual([true, []]);
      expect(op.definition.description).toContain(`\`${scope}\``);
    }
  });

  it('documents the written error codes with their statuses', () => {
    expect(written.errors).toEqual([
      { status: 403, code: 'forbidden' },
      { status: 404, code: 'not_found' },
    ]);
    const exampleCode = (ref: string) =>
      (resolveRef<OpenAPIV3_1.ExampleObject>(doc, { $ref: ref }).value as { error: { code: string } }).error
        .code;
    for (const op of operationsOf(doc)) expect(op.statuses).toContain('403');
    expect(operationsOf(doc).find((op) => op.operationId === 'getWalk')?.statuses).toContain('404');
    expect(exampleCode('#/components/examples/Forbidden')).toBe('forbidden');
    expect(exampleCode('#/components/examples/NotFound')).toBe('not_found');
    for (const { status, code } of written.errors) expect(ERROR_STATUSES[code]).toBe(status);
  });

  it('shapes web_url and app_link as the written spec does', () => {
    const summary = schemas.WalkSummary as OpenAPIV3_1.SchemaObject;
    const props = summary.properties as Record<string, OpenAPIV3_1.SchemaObject>;
    expect(props.web_url?.description).toContain(written.linkShapes.web_url);
    expect(props.app_link?.description).toContain(written.linkShapes.app_link);
  });

  it('keeps the planned endpoints out of the live spec and marks each as planned', () => {
    const plannedOps = operationsOf(loadSpec(PLANNED_SPEC_PATH));
    // Those made live have left the planned spec, each whole.
    const stillPlanned = written.plannedEndpoints.filter((path) => !madeLive.some((op) => op.path === path));
    expect(plannedOps.map((op) => op.path).sort()).toEqual([...stillPlanned].sort());
    for (const op of plannedOps) {
      expect(Object.keys(doc.paths ?? {})).not.toContain(op.path);
      expect((op.definition as Record<string, unknown>)['x-status']).toBe('planned');
    }
  });

  it("names the contract's six credential variables as CONFORMANCE_* in CREDENTIAL_NAMES", () => {
    expect([...CREDENTIAL_NAMES]).toEqual(written.credentialNames);
  });
});

const shared = sharedWrittenFacts();

describe('spec/written-spec-facts.json against ../shared', () => {
  // The facts above always run; this comparison needs the written spec, which lives outside the repository.
  it.skipIf(shared === undefined)(
    shared === undefined
      ? 'is compared with the written spec only where it is present: SKIPPED, ../shared/spec-source/canvassing-read-api.md is not beside this clone'
      : 'equals the facts extracted from ../shared/spec-source/canvassing-read-api.md and ../shared/CONTRACT.md now (npm run spec:written-facts rewrites it)',
    () => {
      expect(committedWrittenFacts()).toEqual(shared);
    },
  );
});
