import { afterAll, describe, expect, it } from 'vitest';
import { diffSpecs } from '../diff.ts';
import type { Verdict } from '../types.ts';
import {
  addQueryParameter,
  DETAIL_PATH,
  getOperation,
  LIST_PATH,
  limitSchema,
  requiredScopes,
  schema,
  SpecVariants,
  type SpecChange,
} from './spec-variants.ts';
import { rememberedEngine } from './remembered-engine.ts';

const variants = new SpecVariants();
afterAll(() => variants.dispose());

interface SafeCase {
  name: string;
  change: SpecChange;
  verdict: Exclude<Verdict, 'breaking'>;
  /** A part of where the change is reported. */
  where: string;
  /** What a client sees, as the change's impact line says it. */
  impact: string;
}

const cases: SafeCase[] = [
  {
    name: 'an added optional query parameter',
    change: (doc) =>
      addQueryParameter(doc, {
        name: 'region',
        in: 'query',
        required: false,
        description: 'Only walks in this region.',
        schema: { type: 'string' },
      }),
    verdict: 'non-breaking',
    where: 'GET /api/v1/walks · parameter region (query)',
    impact: 'A client may now send `region` to GET /api/v1/walks; a client that does not sees no change.',
  },
  {
    name: 'an optional query parameter inserted before limit',
    change: (doc) => {
      const operation = getOperation(doc, LIST_PATH);
      operation.parameters = [
        { name: 'region', in: 'query', schema: { type: 'string' } },
        ...(operation.parameters ?? []),
      ];
    },
    verdict: 'non-breaking',
    where: 'GET /api/v1/walks · parameter region (query)',
    impact: 'A client may now send `region` to GET /api/v1/walks',
  },
  {
    name: 'a reworded description',
    change: (doc) => {
      schema(doc, 'WalkName').description = 'The name a campaign gave the walk.';
    },
    verdict: 'annotation-only',
    where: 'body data[].name',
    impact: 'No client sees a difference: only `description` changed.',
  },
  {
    name: 'an added schema example',
    change: (doc) => {
      schema(doc, 'WalkName').examples = ['Oak Hollow Loop — Saturday AM'];
    },
    verdict: 'annotation-only',
    where: 'body data[].name',
    impact: 'No client sees a difference',
  },
  {
    name: 'an added response example',
    change: (doc) => {
      const content = getOperation(doc, DETAIL_PATH).responses?.['200'] as {
        content: Record<string, { examples: Record<string, unknown> }>;
      };
      const media = content.content['application/json'];
      if (!media) throw new Error('getWalk 200 has no JSON body');
      media.examples.oneStop = {
        summary: 'A walk with one stop',
        value: { ok: true, data: { id: '97409878-618c-437e-abe1-8a03d7eaef41', name: 'Elm', stops: [] } },
      };
    },
    verdict: 'annotation-only',
    where: 'GET /api/v1/walks/{id} · response 200 · application/json example oneStop',
    impact: 'No client sees a difference',
  },
  {
    name: 'a raised limit maximum',
    change: (doc) => {
      limitSchema(doc).maximum = 500;
    },
    verdict: 'non-breaking',
    where: 'parameter limit (query)',
    impact: 'A client that sends `limit=500` now gets 200 instead of 400.',
  },
  {
    name: 'an added optional response field',
    change: (doc) => {
      const summary = schema(doc, 'WalkSummary');
      summary.properties = { ...summary.properties, created_at: { type: 'string', format: 'date-time' } };
    },
    verdict: 'non-breaking',
    where: 'body data[].created_at',
    impact: 'A client now also gets `data[].created_at` in the 200 answer of GET /api/v1/walks',
  },
  {
    name: 'a scope no longer required',
    change: (doc) => {
      requiredScopes(doc, LIST_PATH).splice(0);
    },
    verdict: 'non-breaking',
    where: 'GET /api/v1/walks',
    impact: 'A client whose key lacks scope `walks:read` can now call GET /api/v1/walks',
  },
  {
    name: 'a deprecated operation',
    change: (doc) => {
      getOperation(doc, LIST_PATH).deprecated = true;
    },
    verdict: 'non-breaking',
    where: 'GET /api/v1/walks',
    impact: 'A client written against the old spec keeps working',
  },
];

describe('spec diff: changes that break no client', () => {
  it.each(cases)('$name is $verdict', async ({ name, change, verdict, where, impact }) => {
    const head = variants.head(name.replace(/\W+/g, '-'), change);
    const diff = await diffSpecs(variants.base(), head, rememberedEngine);

    expect(diff.verdict).toBe(verdict);
    expect(diff.counts.breaking).toBe(0);
    expect(diff.changes.length).toBeGreaterThan(0);
    expect(diff.changes.map((c) => c.where).join('\n')).toContain(where);
    expect(diff.changes.map((c) => c.impact).join('\n')).toContain(impact);
  });

  it('finds no change between identical specs', async () => {
    const diff = await diffSpecs(
      variants.base(),
      variants.head('identical', () => {}),
      rememberedEngine,
    );

    expect(diff.verdict).toBe('no-changes');
    expect(diff.changes).toEqual([]);
  });
});
