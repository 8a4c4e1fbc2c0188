import { afterAll, describe, expect, it } from 'vitest';
import { LIMIT } from '../../facts.ts';
import { diffSpecs } from '../diff.ts';
import { rememberedEngine } from './remembered-engine.ts';
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
  /** What a client sees, as the change's impact line says it. */
  impact: string;
}

const cases: BreakingCase[] = [
  {
    name: 'a removed endpoint',
    change: (doc) => delete doc.paths?.[DETAIL_PATH],
    rule: 'path-removed',
    where: 'path /api/v1/walks/{id}',
    impact:
      'A client that calls `/api/v1/walks/{id}` now gets 404 instead of an answer: the endpoint is gone.',
  },
  {
    name: 'a removed response field',
    change: (doc) => dropProperty(doc, 'WalkSummary', 'app_link'),
    rule: 'property-removed',
    where: 'GET /api/v1/walks · response 200 · body data[].app_link',
    impact:
      'A client that reads `data[].app_link` from the 200 answer of GET /api/v1/walks no longer gets it.',
  },
  {
    name: 'a retyped response field',
    change: (doc) => {
      property(doc, 'WalkSummary', 'count').type = 'string';
    },
    rule: 'schema-type-changed',
    where: 'body data[].count',
    impact:
      'A client that reads `data[].count` from the 200 answer of GET /api/v1/walks as integer may now get string.',
  },
  {
    name: 'a lowered limit maximum',
    change: (doc) => {
      limitSchema(doc).maximum = 100;
    },
    rule: 'schema-constraint-changed',
    where: 'GET /api/v1/walks · parameter limit (query)',
    impact: `A client that sends \`limit=${LIMIT.maximum}\` now gets 400 instead of 200.`,
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
    impact:
      "A client that counts or branches on 'visited_moved_away' in `data.stops[].status` never gets it again.",
  },
  {
    name: 'a response field that became nullable',
    change: (doc) => {
      schema(doc, 'WalkName').type = ['string', 'null'];
    },
    rule: 'schema-type-changed',
    where: 'body data[].name',
    impact: 'as string may now get string or null.',
  },
  {
    name: 'an enum value added to a response field',
    change: (doc) => {
      schema(doc, 'StopStatus').enum?.push('visited_dog_at_door');
    },
    rule: 'enum-values-added',
    where: 'body data.stops[].status',
    impact: "may now get 'visited_dog_at_door', which the old spec never listed.",
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
    impact:
      'A client that reads `data[].web_url` from the 200 answer of GET /api/v1/walks may now find it missing.',
  },
  {
    name: 'a new required query parameter',
    change: (doc) =>
      addQueryParameter(doc, { name: 'region', in: 'query', required: true, schema: { type: 'string' } }),
    rule: 'parameter-became-required',
    where: 'GET /api/v1/walks · parameter region (query)',
    impact:
      'A client that does not send `region` (every client of the old spec) now gets 400 from GET /api/v1/walks.',
  },
  {
    name: 'a raised limit minimum',
    change: (doc) => {
      limitSchema(doc).minimum = 10;
    },
    rule: 'schema-constraint-changed',
    where: 'parameter limit (query)',
    impact: `A client that sends \`limit=${LIMIT.minimum}\` now gets 400 instead of 200.`,
  },
  {
    name: 'a changed limit default',
    change: (doc) => {
      limitSchema(doc).default = 20;
    },
    rule: 'project/parameter-default-changed',
    where: 'parameter limit (query)',
    impact: `A client that omits \`limit\` now gets the answer for \`limit=20\` instead of \`limit=${LIMIT.default}\`.`,
  },
  {
    name: 'a newly required scope',
    change: (doc) => {
      requiredScopes(doc, LIST_PATH).push('walks:export');
    },
    rule: 'project/required-scopes-added',
    where: 'GET /api/v1/walks',
    impact: 'A client whose key lacks scope `walks:export` now gets 403 `forbidden` from GET /api/v1/walks',
  },
  {
    name: 'a removed response status',
    change: (doc) => delete getOperation(doc, DETAIL_PATH).responses?.['404'],
    rule: 'response-removed',
    where: 'GET /api/v1/walks/{id} · response 404',
    impact: 'A client that handles 404 from GET /api/v1/walks/{id} can no longer count on it',
  },
];

describe('spec diff: breaking changes', () => {
  it.each(cases)('$name is breaking', async ({ name, change, rule, where, impact }) => {
    const head = variants.head(name.replace(/\W+/g, '-'), change);
    const diff = await diffSpecs(variants.base(), head, rememberedEngine);

    expect(diff.verdict).toBe('breaking');
    const breaking = diff.changes.filter((c) => c.classification === 'breaking');
    expect(breaking.map((c) => c.rule)).toContain(rule);
    const matched = breaking.find((c) => c.rule === rule);
    expect(matched?.where).toContain(where);
    expect(matched?.message.length).toBeGreaterThan(10);
    expect(matched?.impact).toContain(impact);
    expect(matched?.id.startsWith(`${rule}@`)).toBe(true);
    expect(diff.counts.breaking).toBe(breaking.length);
  });

  it('gives a break the same id in every run, whatever the files are called and wherever its lines sit', async () => {
    const lower = (doc: Parameters<SpecChange>[0]) => {
      limitSchema(doc).maximum = 100;
    };
    const first = await diffSpecs(variants.base(), variants.head('id-run-one', lower), rememberedEngine);
    const second = await diffSpecs(
      variants.base(),
      variants.head('id-run-two-shifted', (doc) => {
        lower(doc);
        doc.info.description = `Moved down.\n\n${doc.info.description ?? ''}\n\nSo every line below moves.`;
      }),
      rememberedEngine,
    );
    const idsOf = (diff: typeof first) =>
      diff.changes.filter((c) => c.classification === 'breaking').map((c) => c.id);

    expect(idsOf(first)).toEqual([
      'schema-constraint-changed@GET /api/v1/walks > parameter limit (query) > maximum',
    ]);
    expect(idsOf(second)).toEqual(idsOf(first));
    expect(second.changes.find((c) => c.classification === 'breaking')?.head?.line).not.toBe(
      first.changes.find((c) => c.classification === 'breaking')?.head?.line,
    );
  });
});
