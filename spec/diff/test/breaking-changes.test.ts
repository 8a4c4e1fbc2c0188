import { afterAll, describe, expect, it } from 'vitest';
import { diffSpecs } from '../diff.ts';
import {
  addQueryParameter,
  DETAIL_PATH,
  dropProperty,
  getOperation,
  LIST_PATH,
  limitSchema,
  property,
  requiredScopes,
  schema,
  SpecVariants,
  type SpecChange,
} from './spec-variants.ts';

const variants = new SpecVariants();
afterAll(() => variants.dispose());

interface BreakingCase {
  name: string;
  change: SpecChange;
  /** The rule that must classify the change as breaking, and a part of where it is reported. */
  rule: string;
  where: string;
}

const cases: BreakingCase[] = [
  {
    name: 'a removed endpoint',
    change: (doc) => delete doc.paths?.[DETAIL_PATH],
    rule: 'path-removed',
    where: 'path /api/v1/walks/{id}',
  },
  {
    name: 'a removed response field',
    change: (doc) => dropProperty(doc, 'WalkSummary', 'app_link'),
    rule: 'property-removed',
    where: 'GET /api/v1/walks · response 200 · body data[].app_link',
  },
  {
    name: 'a retyped response field',
    change: (doc) => {
      property(doc, 'WalkSummary', 'count').type = 'string';
    },
    rule: 'schema-type-changed',
    where: 'body data[].count',
  },
  {
    name: 'a lowered limit maximum',
    change: (doc) => {
      limitSchema(doc).maximum = 100;
    },
    rule: 'schema-constraint-changed',
    where: 'GET /api/v1/walks · parameter limit (query)',
  },
  {
    name: 'a narrowed enum (a stop status removed)',
    change: (doc) => {
      schema(doc, 'StopStatus').enum = schema(doc, 'StopStatus').enum?.filter(
        (s) => s !== 'visited_moved_away',
      );
    },
    rule: 'project/enum-values-removed',
    where: 'body data.stops[].status',
  },
  {
    name: 'a response field that became nullable',
    change: (doc) => {
      schema(doc, 'WalkName').type = ['string', 'null'];
    },
    rule: 'schema-type-changed',
    where: 'body data[].name',
  },
  {
    name: 'an enum value added to a response field',
    change: (doc) => {
      schema(doc, 'StopStatus').enum?.push('visited_dog_at_door');
    },
    rule: 'enum-values-added',
    where: 'body data.stops[].status',
  },
  {
    name: 'a response property no longer required',
    change: (doc) => {
      schema(doc, 'WalkSummary').required = schema(doc, 'WalkSummary').required?.filter(
        (f) => f !== 'web_url',
      );
    },
    rule: 'required-properties-removed',
    where: 'body data[]',
  },
  {
    name: 'a new required query parameter',
    change: (doc) =>
      addQueryParameter(doc, { name: 'region', in: 'query', required: true, schema: { type: 'string' } }),
    rule: 'parameter-became-required',
    where: 'GET /api/v1/walks · parameter region (query)',
  },
  {
    name: 'a raised limit minimum',
    change: (doc) => {
      limitSchema(doc).minimum = 10;
    },
    rule: 'schema-constraint-changed',
    where: 'parameter limit (query)',
  },
  {
    name: 'a changed limit default',
    change: (doc) => {
      limitSchema(doc).default = 20;
    },
    rule: 'project/parameter-default-changed',
    where: 'parameter limit (query)',
  },
  {
    name: 'a newly required scope',
    change: (doc) => {
      requiredScopes(doc, LIST_PATH).push('walks:export');
    },
    rule: 'project/required-scopes-added',
    where: 'GET /api/v1/walks',
  },
  {
    name: 'a removed response status',
    change: (doc) => delete getOperation(doc, DETAIL_PATH).responses?.['404'],
    rule: 'response-removed',
    where: 'GET /api/v1/walks/{id} · response 404',
  },
];

describe('spec diff: breaking changes', () => {
  it.each(cases)('$name is breaking', async ({ name, change, rule, where }) => {
    const diff = await diffSpecs(variants.base(), variants.head(name.replace(/\W+/g, '-'), change));

    expect(diff.verdict).toBe('breaking');
    const breaking = diff.changes.filter((c) => c.classification === 'breaking');
    expect(breaking.map((c) => c.rule)).toContain(rule);
    const matched = breaking.find((c) => c.rule === rule);
    expect(matched?.where).toContain(where);
    expect(matched?.message.length).toBeGreaterThan(10);
    expect(diff.counts.breaking).toBe(breaking.length);
  });
});
