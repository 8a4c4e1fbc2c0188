import { afterAll, describe, expect, it } from 'vitest';
import { diffSpecs } from '../diff.ts';
import {
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

const narrowStatuses: SpecChange = (doc) => {
  schema(doc, 'StopStatus').enum = schema(doc, 'StopStatus').enum?.filter((s) => s !== 'dropped_hanger');
};
const halveLimitDefault: SpecChange = (doc) => {
  limitSchema(doc).default = 25;
};

describe('project rules over the engine', () => {
  it.each([
    {
      name: 'narrowed-enum',
      change: narrowStatuses,
      rule: 'project/enum-values-removed',
      lost: "'dropped_hanger'",
    },
    {
      name: 'limit-default',
      change: halveLimitDefault,
      rule: 'project/parameter-default-changed',
      lost: '50',
    },
  ])('$rule makes breaking what Redocly rates below major', async ({ name, change, rule, lost }) => {
    const head = variants.head(name, change);

    const engine = await rememberedEngine(variants.basePath, head.path);
    expect(engine.changes).toHaveLength(1);
    expect(engine.changes[0]?.impact).not.toBe('major');

    const diff = await diffSpecs(variants.base(), head, rememberedEngine);
    expect(diff.verdict).toBe('breaking');
    expect(diff.changes[0]).toMatchObject({ classification: 'breaking', rule, engineImpact: 'patch' });
    expect(diff.changes[0]?.message).toContain(lost);
  });

  it('reports a newly required scope, which Redocly does not see', async () => {
    const head = variants.head('scope-added', (doc) => requiredScopes(doc, LIST_PATH).push('walks:export'));

    expect((await rememberedEngine(variants.basePath, head.path)).changes).toEqual([]);
    const diff = await diffSpecs(variants.base(), head, rememberedEngine);
    expect(diff.changes).toEqual([
      expect.objectContaining({
        classification: 'breaking',
        where: 'GET /api/v1/walks',
        rule: 'project/required-scopes-added',
        message: expect.stringContaining('`walks:export`'),
      }),
    ]);
  });

  it('treats a response field named `description` as data, not annotation', async () => {
    const head = variants.head('description-field', (doc) => {
      const summary = schema(doc, 'WalkSummary');
      summary.properties = { ...summary.properties, description: { type: 'string' } };
    });

    const diff = await diffSpecs(variants.base(), head, rememberedEngine);
    expect(diff.verdict).toBe('non-breaking');
    expect(diff.changes[0]?.where).toContain('body data[].description');
  });
});
