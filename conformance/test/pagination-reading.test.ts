/**
 * How the spec model reads pagination and what `limit` bounds: `x-pagination` when declared, the
 * common cursor shape inferred otherwise (and said so), a declaration that names nothing refused;
 * and a `limit` on an item operation judged on the array that operation declares, not as a list.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { OpenApiDocument } from '../../spec/contract.ts';
import { LIVE_SPEC_PATH, PLANNED_SPEC_PATH } from '../../spec/facts.ts';
import type { Observation } from '../core/observation.ts';
import { inferenceLine } from '../core/pagination.ts';
import { type SpecModel, specModelOf } from '../core/spec-model.ts';
import type { SuiteConfig } from '../core/configuration.ts';
import { DEFAULTS } from '../cli/config.ts';
import { ruleById } from '../rules/registry.ts';
import { ruleContextOf } from '../run/live.ts';
import { recordedJson } from './harness.ts';

const identity = { path: 'copy.yaml', version: 't', sha256: '0' };

interface Get {
  parameters?: Record<string, unknown>[];
  [extension: string]: unknown;
}
interface Doc {
  paths: Record<string, { get: Get }>;
  components: Record<string, Record<string, Record<string, unknown>>>;
}

/** The project spec with the planned lists live; `edit` changes the copy before it is modelled. */
function listsLive(edit: (doc: Doc) => void = () => {}): SpecModel {
  const doc = parse(readFileSync(LIVE_SPEC_PATH, 'utf8')) as Doc;
  const planned = parse(readFileSync(PLANNED_SPEC_PATH, 'utf8')) as Doc;
  for (const path of ['/api/v1/lists', '/api/v1/lists/{id}']) {
    const item = structuredClone(planned.paths[path]) as { get: Get };
    delete item.get['x-status'];
    doc.paths[path] = item;
  }
  for (const [section, entries] of Object.entries(planned.components))
    doc.components[section] = { ...entries, ...doc.components[section] };
  edit(doc);
  return specModelOf(doc as unknown as OpenApiDocument, identity);
}

const get = (doc: Doc, path: string) => doc.paths[path]?.get as Get;
const schema = (doc: Doc, name: string) =>
  doc.components.schemas?.[name] as { properties: Record<string, unknown> };
const query = (name: string, type: Record<string, unknown> = { type: 'string' }) => ({
  name,
  in: 'query',
  schema: type,
});
const boundedLimit = query('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 });

describe('how an operation pages', () => {
  it('pages nowhere in the project spec: no cursor parameter, nothing inferred', () => {
    expect(listsLive().live.filter((op) => op.pagination)).toEqual([]);
  });

  it('infers the common shape: a cursor beside limit, next_cursor at the top of the body, and prints it', () => {
    const spec = listsLive((doc) => {
      get(doc, '/api/v1/lists').parameters = [boundedLimit, query('cursor')];
      schema(doc, 'SavedListEnvelope').properties.next_cursor = { type: ['string', 'null'] };
    });
    const op = spec.operation('listLists');
    expect(op.pagination).toEqual({
      items: 'data',
      cursor: 'cursor',
      next: 'next_cursor',
      source: 'inferred',
    });
    expect(inferenceLine(op, op.pagination ?? ({} as never))).toBe(
      'conformance: GET /api/v1/lists pages by inference (no x-pagination): cursor parameter cursor, next cursor at next_cursor, items at data\n',
    );
  });

  it('infers a next-cursor field beside the one array of data (an item with a paged list inside)', () => {
    const spec = listsLive((doc) => {
      get(doc, '/api/v1/lists/{id}').parameters?.push(query('page_token'));
      const detail = doc.components.schemas?.SavedListDetail as {
        allOf: { properties?: Record<string, unknown> }[];
      };
      (detail.allOf[1]?.properties as Record<string, unknown>).next_page_token = { type: 'string' };
    });
    expect(spec.operation('getList').pagination).toEqual({
      items: 'data.voters',
      cursor: 'page_token',
      next: 'data.next_page_token',
      source: 'inferred',
    });
  });

  it('takes a declaration as written, and prints nothing for it', () => {
    const spec = listsLive((doc) => {
      get(doc, '/api/v1/lists').parameters = [query('after')];
      // `items` is the array's path inside `data`: '' is `data` itself (D-PAGINATION-DECLARED).
      get(doc, '/api/v1/lists')['x-pagination'] = { items: '', cursor: 'after', next: 'meta.count' };
    });
    const op = spec.operation('listLists');
    expect(op.pagination).toEqual({ items: 'data', cursor: 'after', next: 'meta.count', source: 'declared' });
    expect(inferenceLine(op, op.pagination ?? ({} as never))).toBeUndefined();
  });

  it('refuses a declaration that names no parameter or no array, naming the operation', () => {
    const declared = (value: unknown) => () =>
      listsLive((doc) => {
        get(doc, '/api/v1/lists')['x-pagination'] = value;
      });
    expect(declared({ items: '', cursor: 'cursor', next: 'next_cursor' })).toThrow(
      /listLists \(GET \/api\/v1\/lists\) x-pagination names the cursor cursor, which is no query parameter/,
    );
    expect(declared({ items: '' })).toThrow(
      /listLists .* x-pagination needs the strings items, cursor and next/,
    );
  });
});

describe('limit on an item operation', () => {
  const spec = listsLive((doc) => {
    get(doc, '/api/v1/lists/{id}').parameters = [{ $ref: '#/components/parameters/Id' }, boundedLimit];
  });
  let seq = 0;
  const answered = (target: string, voters: number): Observation => {
    const json = {
      ok: true,
      data: {
        id: 'lst_1',
        name: 'Doors',
        count: voters,
        source: 'query',
        created_at: '2026-01-01T00:00:00Z',
        voters: Array.from({ length: voters }, (_, i) => ({ id: `vtr_${i}`, name: `Voter ${i}` })),
      },
    };
    return recordedJson(spec, { seq: ++seq, url: `https://api.example.test${target}`, status: 200, json });
  };
  const ctx = ruleContextOf(spec, { ...DEFAULTS, strict: false, keys: {} } as SuiteConfig, 'traffic');

  it('bounds the array its operation declares (the voters), not the item as a list', () => {
    expect(spec.operation('getList').limit).toEqual({
      name: 'limit',
      minimum: 1,
      maximum: 100,
      default: 20,
      items: 'data.voters',
    });
  });

  it('judges a bad limit answered 200 by the voters it holds', () => {
    const rule = ruleById('LIMITS-003');
    expect(rule.judge?.(answered('/api/v1/lists/lst_1?limit=101', 100), ctx)).toMatchObject({
      verdict: 'holds',
    });
    expect(rule.judge?.(answered('/api/v1/lists/lst_1?limit=101', 101), ctx)).toMatchObject({
      verdict: 'breaks',
      problem: expect.stringContaining('200 with 101 items, more than 100'),
    });
  });

  it('leaves a limit that bounds no array of the body to the spec, unjudged as a page size', () => {
    const bare = listsLive((doc) => {
      get(doc, '/api/v1/lists/{id}').parameters = [{ $ref: '#/components/parameters/Id' }, boundedLimit];
      const detail = doc.components.schemas?.SavedListDetail as { allOf: unknown[] };
      detail.allOf = detail.allOf.slice(0, 1);
    });
    expect(bare.operation('getList').limit).toBeUndefined();
  });
});
