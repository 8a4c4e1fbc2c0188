/** Unknown walks and paths (§4.3 rule 1, §7): `not_found`, and the envelope on every refusal. */
import { statusOfError, WALKS_PATH } from '../../spec/facts.ts';
import { PRIMARY } from '../key-uses.ts';
import type { Check } from './check.ts';
import {
  answersAs,
  describe,
  errorEnvelopeProblem,
  expectedRefusal,
  noAnswer,
  refusal,
  refusedWithEnvelope,
  reportChoice,
  verdict,
} from './outcome.ts';

const MALFORMED_ID = 'not-a-walk-id';
/** What an unknown walk gets (§4.3 rule 1), and the project's answer to every other unknown. */
const NOT_FOUND = 'not_found';

export const notFoundChecks: Check[] = [
  {
    id: 'NOT-FOUND-001',
    section: '§4.3 rule 1, §7',
    title: `A walk id that does not exist gets ${refusal(NOT_FOUND)}`,
    area: 'not-found',
    level: 'required',
    mock: 'run',
    hint: `Answer unknown walk ids with ${statusOfError(NOT_FOUND)} {"ok":false,"error":{"code":"${NOT_FOUND}","message":"..."}}.`,
    async run(ctx) {
      const expected = expectedRefusal(NOT_FOUND);
      const { exchange } = await ctx.data.detail(
        ctx.data.unknownId,
        PRIMARY,
        ctx.data.profile.unknownWalkHeaders,
      );
      const missing = noAnswer(expected, exchange);
      if (missing || !exchange.response) return missing as NonNullable<typeof missing>;
      const ok = answersAs(exchange.response, NOT_FOUND) && !errorEnvelopeProblem(ctx, exchange.response);
      return verdict(
        expected,
        ok ? [] : [`answered ${describe(exchange.response)}`],
        refusal(NOT_FOUND),
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
    hint: `Answer ids that are not UUIDs with a 4xx error envelope (the project answers ${refusal(NOT_FOUND)}).`,
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
      reportChoice((await ctx.data.detail(MALFORMED_ID)).exchange, NOT_FOUND, ', as an unknown UUID'),
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
      return { ...outcome, differs: !answersAs(exchange.response, NOT_FOUND) };
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
    hint: `Planned endpoints are not active; the project answers ${refusal(NOT_FOUND)}.`,
    run: async (ctx) =>
      reportChoice(
        await ctx.client.send({ path: '/api/v1/lists', auth: PRIMARY }),
        NOT_FOUND,
        ' ("This endpoint is planned and not active yet.")',
      ),
  },
];
