import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import type { OpenApiDocument } from '../../spec/contract.ts';
import { LIVE_SPEC_PATH, PLANNED_SPEC_PATH } from '../../spec/facts.ts';
import { ConfigError } from '../core/config-error.ts';
import { loadSpecModel, pathOf, specModelOf } from '../core/spec-model.ts';

const identity = { path: 'test.yaml', version: 't', sha256: '0' };
const liveDoc = () => parse(readFileSync(LIVE_SPEC_PATH, 'utf8')) as OpenApiDocument;

describe('the spec model', () => {
  it("reads the project spec's operations, their kinds, bounds and scopes", () => {
    const spec = loadSpecModel(LIVE_SPEC_PATH);
    expect(spec.live.map((op) => [op.operationId, op.kind])).toEqual([
      ['listWalks', 'collection'],
      ['getWalk', 'item'],
    ]);
    const list = spec.operation('listWalks');
    expect(list.limit).toEqual({ name: 'limit', minimum: 1, maximum: 200, default: 50, items: 'data' });
    expect(list.requiredScopes).toEqual(['walks:read']);
    expect(list.counted).toBe(true);
    expect(spec.operation('getWalk').collection?.operationId).toBe('listWalks');
    expect(spec.apiPrefix).toBe('/api/v1');
    expect(spec.keyPrefix).toBe('svc_sk_live_');
    expect(spec.statusOfCode('forbidden')).toBe(403);
    expect(spec.statusOfCode('not_found')).toBe(404);
    expect(spec.codesOf(spec.operation('getWalk'), 404)).toEqual(['not_found']);
    expect(spec.plannedPaths).toContain('/api/v1/lists/{id}');
    expect(spec.plannedPaths).not.toContain('/api/v1/walks');
  });

  it('matches concrete paths to operations and decodes their parameters', () => {
    const spec = loadSpecModel(LIVE_SPEC_PATH);
    expect(spec.match('GET', '/api/v1/walks')?.op.operationId).toBe('listWalks');
    expect(spec.match('HEAD', '/api/v1/walks/a%20b')?.params).toEqual({ id: 'a b' });
    expect(spec.match('GET', '/api/v1/walks/')).toBeUndefined();
    expect(spec.match('POST', '/api/v1/walks')).toBeUndefined();
    expect(pathOf(spec.operation('getWalk'), 'a/b')).toBe('/api/v1/walks/a%2Fb');
  });

  it('takes a planned operation that goes live as a live one, with the planned paths left out', () => {
    const doc = liveDoc();
    const planned = parse(readFileSync(PLANNED_SPEC_PATH, 'utf8')) as OpenApiDocument;
    for (const path of ['/api/v1/lists', '/api/v1/lists/{id}']) {
      const item = structuredClone(planned.paths?.[path]) as Record<string, Record<string, unknown>>;
      delete item.get?.['x-status'];
      (doc.paths as Record<string, unknown>)[path] = item;
    }
    const merged: Record<string, Record<string, unknown>> = {};
    for (const part of [planned.components, doc.components]) {
      for (const [section, entries] of Object.entries(part ?? {}))
        merged[section] = { ...merged[section], ...entries };
    }
    doc.components = merged;
    const spec = specModelOf(doc, identity, ['/api/v1/lists', '/api/v1/lists/{id}', '/api/v1/signs']);
    expect(spec.live.map((op) => op.path)).toContain('/api/v1/lists');
    expect(spec.operation('listLists').kind).toBe('collection');
    // Its detail is the summary's fields and more (`allOf`): an item of the collection all the same.
    expect(spec.operation('getList').kind).toBe('item');
    expect(spec.operation('getList').collection?.operationId).toBe('listLists');
    expect(spec.operation('listLists').requiredScopes).toEqual(['lists:read']);
    expect(spec.plannedPaths).toEqual(['/api/v1/signs']);
  });

  it('refuses a document that is not OpenAPI 3.1, in one line', () => {
    const doc = { ...liveDoc(), openapi: '3.0.3' };
    expect(() => specModelOf(doc, identity)).toThrow(ConfigError);
    expect(() => specModelOf(doc, identity)).toThrow(/not an OpenAPI 3\.1 document/);
    expect(() => specModelOf({ swagger: '2.0' } as unknown as OpenApiDocument, identity)).toThrow(
      /not an OpenAPI 3\.1/,
    );
  });

  it('refuses a document without a live operation', () => {
    const doc = liveDoc();
    for (const item of Object.values(doc.paths ?? {}))
      (item?.get as Record<string, unknown>)['x-status'] = 'planned';
    expect(() => specModelOf(doc, identity)).toThrow(/has no live GET operation to check/);
  });

  it('names a secured live operation that has no scope', () => {
    const doc = liveDoc();
    delete (doc.paths?.['/api/v1/walks/{id}']?.get as Record<string, unknown>)['x-required-scopes'];
    expect(() => specModelOf(doc, identity)).toThrow(
      /getWalk \(GET \/api\/v1\/walks\/\{id\}\) names no scope in x-required-scopes/,
    );
  });

  it('says a missing or unparsable file is unusable, naming it', () => {
    expect(() => loadSpecModel('/nonexistent/spec.yaml')).toThrow(
      /--spec \/nonexistent\/spec\.yaml cannot be read: ENOENT/,
    );
  });
});
