/**
 * CONTRIBUTING's recipe "make a planned endpoint live", step 1, on a copy of the spec: the planned
 * paths of `spec/planned.openapi.yaml` moved into `spec/openapi.yaml` with what a live endpoint
 * documents (its refusals, and for a collection its `limit` bounds), and the decisions the API team
 * takes when it goes live (`decide`: the detail shape, a cursor). Nothing else: serving and judging
 * them is the job of the spec-driven server and the generic rules.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { LIVE_SPEC_PATH, PLANNED_SPEC_PATH } from '../../spec/facts.ts';

type Json = Record<string, unknown>;
interface SpecDoc {
  info: Json;
  paths: Record<string, { get: Json & { parameters?: Json[]; responses: Json } }>;
  components: Record<string, Json>;
}

/** The refusals every live operation documents, with the live spec's answers. */
const LIVE_REFUSALS: Json = {
  '401': { $ref: '#/components/responses/Unauthorized' },
  '403': { $ref: '#/components/responses/Forbidden' },
  '429': { $ref: '#/components/responses/RateLimited' },
  '500': { $ref: '#/components/responses/InternalError' },
};

/** A collection's `limit`, with bounds the API team chose. */
const COPY_LIMIT = { minimum: 1, maximum: 100, default: 20 };

/**
 * The decisions taken when lists and SMS campaigns go live: the lists page by a cursor declared
 * with `x-pagination` (the next cursor in `meta`), a list's voters page by a cursor the common
 * shape lets a reader infer (the next cursor beside the voters), and an SMS campaign's detail is
 * the campaign as listed.
 */
export function listsAndSmsDecisions(doc: SpecDoc): void {
  const lists = doc.paths['/api/v1/lists']?.get;
  if (lists) {
    lists.parameters = [...(lists.parameters ?? []), cursorParameter()];
    lists['x-pagination'] = { items: '', cursor: 'cursor', next: 'meta.next_cursor' };
    const envelope = doc.components.schemas?.SavedListEnvelope as { properties: Json } | undefined;
    if (envelope) envelope.properties.meta = { $ref: '#/components/schemas/PagedListMeta' };
    doc.components.schemas = {
      ...doc.components.schemas,
      PagedListMeta: {
        type: 'object',
        required: ['count', 'next_cursor'],
        properties: {
          count: { type: 'integer', minimum: 0, description: 'Number of items returned in `data`.' },
          next_cursor: { type: ['string', 'null'], description: 'The next page, null on the last.' },
        },
      },
    };
  }
  const detail = doc.components.schemas?.SavedListDetail as { allOf?: Json[] } | undefined;
  const voters = detail?.allOf?.[1] as { properties?: Json; required?: string[] } | undefined;
  if (voters?.properties) {
    voters.properties.next_cursor = { type: ['string', 'null'], description: 'The next page of voters.' };
    voters.required = [...new Set([...(voters.required ?? []), 'next_cursor'])];
    const list = doc.paths['/api/v1/lists/{id}']?.get;
    if (list) list.parameters = [...(list.parameters ?? []), cursorParameter()];
  }
  const sms = doc.paths['/api/v1/sms/campaigns/{id}']?.get;
  if (sms) {
    doc.components.schemas = {
      ...doc.components.schemas,
      SmsCampaignDetailEnvelope: {
        type: 'object',
        required: ['ok', 'data'],
        properties: {
          ok: { type: 'boolean', const: true },
          data: { $ref: '#/components/schemas/SmsCampaign' },
        },
      },
    };
    sms.responses['200'] = {
      description: 'One SMS campaign.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/SmsCampaignDetailEnvelope' } } },
    };
  }
}

function cursorParameter(): Json {
  return { name: 'cursor', in: 'query', required: false, schema: { type: 'string' } };
}

/**
 * A copy of the live spec with `paths` of the planned spec live, `decide` applied; returns the
 * copy's path. Collections get a `limit`; items only those in `pagedItems` (a list's voters).
 */
export function plannedMadeLive(
  paths: readonly string[],
  decide: (doc: SpecDoc) => void = () => undefined,
  { pagedItems = [] }: { pagedItems?: readonly string[] } = {},
): string {
  const live = parse(readFileSync(LIVE_SPEC_PATH, 'utf8')) as SpecDoc;
  const planned = parse(readFileSync(PLANNED_SPEC_PATH, 'utf8')) as SpecDoc;
  for (const path of paths) {
    // Already made live in the project's spec: kept as the API team wrote it.
    if (live.paths[path] && !planned.paths[path]) continue;
    const item = structuredClone(planned.paths[path]);
    if (!item) throw new Error(`the planned spec has no path ${path}`);
    delete item.get['x-status'];
    const collection = !path.endsWith('}');
    const itemLimits = pagedItems.includes(path);
    item.get.parameters = (item.get.parameters ?? []).filter((p) => p.name !== 'limit');
    if (collection || itemLimits) item.get.parameters.push(limitParameter());
    item.get.responses = {
      ...item.get.responses,
      ...LIVE_REFUSALS,
      ...(collection || itemLimits ? { '400': { $ref: '#/components/responses/ListBadRequest' } } : {}),
      ...(collection ? {} : { '404': { $ref: '#/components/responses/NotFound' } }),
    };
    live.paths[path] = item;
  }
  for (const part of ['schemas', 'examples', 'parameters', 'responses']) {
    const into = (live.components[part] ??= {});
    for (const [name, value] of Object.entries(planned.components[part] ?? {})) into[name] ??= value;
  }
  decide(live);
  const file = join(mkdtempSync(join(tmpdir(), 'planned-live-')), 'openapi.yaml');
  writeFileSync(file, stringify(live));
  return file;
}

function limitParameter(): Json {
  return { name: 'limit', in: 'query', required: false, schema: { type: 'integer', ...COPY_LIMIT } };
}
