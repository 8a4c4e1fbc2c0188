/** Unknown walks and paths (§4.3 rule 1, §7): 404 not_found, and the envelope on every refusal. */
import { WALKS_PATH } from '../../spec/facts.ts';
import { PRIMARY } from '../key-uses.ts';
import type { Check } from './check.ts';
import {
  answersAsDecided,
  describe,
  errorEnvelopeProblem,
  errorOf,
  noAnswer,
  refusedWithEnvelope,
  reportChoice,
  verdict,
} from './outcome.ts';

const MALFORMED_ID = 'not-a-walk-id';

export const notFoundChecks: Check[] = [
  {
    id: 'NOT-FOUND-001',
    section: '§4.3 rule 1, §7',
    title: 'A walk id that does not exist gets 404 not_found',
    area: 'not-found',
    level: 'required',
    hint: 'Answer unknown walk ids with 404 {"ok":false,"error":{"code":"not_found","message":"..."}}.',
    async run(ctx) {
      const expected = '404 with error.code "not_found"';
      const { exchange } = await ctx.data.detail(
        ctx.data.unknownId,
        PRIMARY,
        ctx.data.profile.unknownWalkHeaders,
      );
      const missing = noAnswer(expected, exchange);
      if (missing || !exchange.response) return missing as NonNullable<typeof missing>;
      const ok =
        exchange.response.status === 404 &&
        errorOf(exchange.response).code === 'not_found' &&
        !errorEnvelopeProblem(ctx, exchange.response);
      return verdict(
        expected,
        ok ? [] : [`answered ${describe(exchange.response)}`],
        '404 not_found',
        exchange,
      );
    },
  },
  {
    id: 'NOT-FOUND-002',
    section: '§4.3',
    title: 'A malformed walk id is refused (4xx error envelope)',
    area: 'not-found',
    level: 'required',
    mock: { skip: 'the mock answers any id with the example walk' },
    hint: 'Answer ids that are not UUIDs with a 4xx error envelope (the project answers 404 not_found).',
    async run(ctx) {
      return refusedWithEnvelope(
        ctx,
        (await ctx.data.detail(MALFORMED_ID)).exchange,
        'a walk id that is not a UUID',
      );
    },
  },
  {
    id: 'NOT-FOUND-003',
    section: '§4.3',
    title: 'Status and code for a malformed walk id',
    area: 'not-found',
    level: 'advisory',
    decision: 'D-ID-MALFORMED',
    mock: { skip: 'the mock answers any id with the example walk' },
    hint: 'Any 4xx error envelope is conformant.',
    run: async (ctx) =>
      reportChoice((await ctx.data.detail(MALFORMED_ID)).exchange, '404 not_found, as an unknown UUID'),
  },
  {
    id: 'NOT-FOUND-004',
    section: '§7',
    title: 'An unknown path under /api/v1 gets a 4xx error envelope',
    area: 'not-found',
    level: 'required',
    decision: 'D-PATH-UNKNOWN',
    mock: { skip: 'the mock answers unknown paths itself, with its own problem+json' },
    hint: 'End routing with a JSON 404 in the error envelope, never the framework’s HTML page.',
    async run(ctx) {
      const exchange = await ctx.client.send({ path: `${WALKS_PATH}-unknown-path`, auth: PRIMARY });
      const outcome = refusedWithEnvelope(ctx, exchange, 'an unknown path');
      if (outcome.status !== 'pass' || !exchange.response) return outcome;
      return { ...outcome, differs: !answersAsDecided(exchange.response, '404 not_found') };
    },
  },
  {
    id: 'NOT-FOUND-005',
    section: '§4.4',
    title: 'What a planned endpoint answers (not active)',
    area: 'not-found',
    level: 'advisory',
    decision: 'D-PLANNED',
    mock: { skip: 'the mock serves the live spec only' },
    hint: 'Planned endpoints are not active; the project answers 404 not_found.',
    run: async (ctx) =>
      reportChoice(
        await ctx.client.send({ path: '/api/v1/lists', auth: PRIMARY }),
        '404 not_found ("This endpoint is planned and not active yet.")',
      ),
  },
];
