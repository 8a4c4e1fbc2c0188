/**
 * Holds spec/openapi.yaml to the facts of the written specification. Where a fact is listed in a
 * table of the written spec, it is read from there, so the two documents cannot drift apart.
 */
import { readFileSync } from 'node:fs';
import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { loadSpec, operationsOf, PLANNED_SPEC_PATH, resolveRef, stopStatusesOf } from '../contract.ts';

const written = readFileSync(
  new URL('../../../shared/spec-source/canvassing-read-api.md', import.meta.url),
  'utf8',
);
const doc = loadSpec();
const schemas = doc.components?.schemas ?? {};

/** The first column of every row of the markdown table that follows a heading. */
function tableAfter(heading: string): string[][] {
  const start = written.indexOf(heading);
  expect(start, `written spec has "${heading}"`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of written.slice(start).split('\n').slice(1)) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('|') || /^\|\s*-/.test(line)) continue;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replaceAll('`', '')),
    );
  }
  return rows.slice(1); // drop the header row
}

describe('spec/openapi.yaml states the written spec', () => {
  it('has exactly the two live endpoints, GET only, under /api/v1', () => {
    const ops = operationsOf(doc).map((op) => `${op.method} ${op.path}`);
    expect(ops).toEqual(['GET /api/v1/walks', 'GET /api/v1/walks/{id}']);
  });

  it('lists the eight stop statuses in the written order, with their meanings', () => {
    const rows = tableAfter('### 2.4 Stop statuses');
    expect(stopStatusesOf(doc)).toEqual(rows.map(([value]) => value));
    const descriptions = (schemas.StopStatus as Record<string, unknown>)['x-enum-descriptions'];
    expect(descriptions).toEqual(Object.fromEntries(rows.map(([value, meaning]) => [value, meaning])));
  });

  it('requires exactly the written fields of a walk summary, detail and stop', () => {
    for (const [heading, name] of [
      ['### 2.1 Walk (summary', 'WalkSummary'],
      ['### 2.2 Walk (detail', 'WalkDetail'],
      ['### 2.3 Stop', 'Stop'],
    ] as const) {
      const fields = tableAfter(heading).map(([field]) => field);
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
    const row = tableAfter('## 8. Limits').find(([name]) => name === 'limit query parameter');
    expect(row?.[2]).toBe('Default 50, minimum 1, maximum 200');
    const limit = resolveRef<OpenAPIV3_1.ParameterObject>(doc, {
      $ref: '#/components/parameters/Limit',
    });
    expect(limit).toMatchObject({ name: 'limit', in: 'query', required: false });
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
  });

  it('accepts the key in Authorization: Bearer or x-api-key, either one alone', () => {
    expect(written).toContain('`Authorization` with the value `Bearer <API_KEY>`');
    expect(written).toContain('`x-api-key` with the value `<API_KEY>`');
    expect(doc.components?.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer' },
      apiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key' },
    });
    for (const op of operationsOf(doc)) {
      expect(op.definition.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }]);
    }
  });

  it('needs the walks:read scope on both operations, stated and described', () => {
    const scope = tableAfter('6. Each key carries').find(([s]) => s === 'walks:read');
    expect(scope?.[1]).toBe('The walks endpoints (live).');
    for (const op of operationsOf(doc)) {
      expect(op.requiredScopes).toEqual(['walks:read']);
      expect(op.definition.description).toContain('`walks:read`');
    }
  });

  it('documents the written error codes with their statuses', () => {
    const rows = tableAfter('Error envelope:');
    expect(rows.map(([status, code]) => [status, code])).toEqual([
      ['403', 'forbidden'],
      ['404', 'not_found'],
    ]);
    const exampleCode = (ref: string) =>
      (resolveRef<OpenAPIV3_1.ExampleObject>(doc, { $ref: ref }).value as { error: { code: string } }).error
        .code;
    for (const op of operationsOf(doc)) expect(op.statuses).toContain('403');
    expect(operationsOf(doc).find((op) => op.operationId === 'getWalk')?.statuses).toContain('404');
    expect(exampleCode('#/components/examples/Forbidden')).toBe('forbidden');
    expect(exampleCode('#/components/examples/NotFound')).toBe('not_found');
  });

  it('shapes web_url and app_link as the written spec does', () => {
    const summary = schemas.WalkSummary as OpenAPIV3_1.SchemaObject;
    const props = summary.properties as Record<string, OpenAPIV3_1.SchemaObject>;
    expect(props.web_url?.description).toContain('{web_base_url}/dashboard/<campaign_slug>/walks/<walk_id>');
    expect(props.app_link?.description).toContain('{web_base_url}/open/<campaign_slug>/walks/<walk_id>');
  });

  it('keeps the planned endpoints out of the live spec and marks each as planned', () => {
    const planned = loadSpec(PLANNED_SPEC_PATH);
    const plannedOps = operationsOf(planned);
    expect(plannedOps.map((op) => op.path).sort()).toEqual(
      tableAfter('### 4.4 Planned endpoints')
        .map(([route]) => route?.replace(/^GET /, ''))
        .sort(),
    );
    for (const op of plannedOps) {
      expect(Object.keys(doc.paths ?? {})).not.toContain(op.path);
      expect((op.definition as Record<string, unknown>)['x-status']).toBe('planned');
    }
  });
});
