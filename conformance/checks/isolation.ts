/**
 * Isolation between campaigns (§5.1, §4.3 rule 1): another campaign's key sees none of this
 * campaign's walks, and cannot even tell them from ids that do not exist.
 */
import type { Exchange } from '../client.ts';
import { isObject, OTHER, PRIMARY } from '../data.ts';
import type { Check, CheckContext } from './check.ts';
import type { Outcome } from '../types.ts';
import {
  describe,
  errorEnvelopeProblem,
  errorOf,
  fail,
  inconclusive,
  noAnswer,
  pass,
  verdict,
} from './outcome.ts';

const MOCK_CAMPAIGNS = { skip: 'the mock has no campaigns: every key sees the same examples' };
const NEEDS: Check['needs'] = ['CONFORMANCE_OTHER_CAMPAIGN_KEY'];

/** This campaign's walks fetched with the other key: the first sampled one and the first with stops. */
async function crossFetches(ctx: CheckContext): Promise<Exchange[]> {
  const sample = await ctx.data.sample();
  const chosen = [...new Set([sample[0], sample.find((w) => typeof w.count === 'number' && w.count > 0)])];
  const ids = chosen.filter((w) => w !== undefined).map((w) => w.id);
  return Promise.all(ids.map(async (id) => (await ctx.data.detail(id, OTHER)).exchange));
}

function notFound(ctx: CheckContext, expected: string, exchange: Exchange): Outcome {
  const missing = noAnswer(expected, exchange);
  if (missing || !exchange.response) return missing as Outcome;
  const ok =
    exchange.response.status === 404 &&
    errorOf(exchange.response).code === 'not_found' &&
    !errorEnvelopeProblem(ctx, exchange.response);
  return ok
    ? pass(expected, '404 not_found', exchange)
    : fail(expected, `answered ${describe(exchange.response)}`, exchange);
}

/**
 * Status, code and message of a refusal. A message may echo the id it was asked about, which tells
 * nothing, so that id is masked before answers are compared.
 */
function shownAnswer(exchange: Exchange): string {
  if (!exchange.response) return `no answer: ${exchange.error?.message ?? ''}`;
  const { code, message } = errorOf(exchange.response);
  const id = decodeURIComponent(exchange.request.url.split('/').pop() ?? '');
  const masked = typeof message === 'string' && id ? message.replaceAll(id, '<id>') : message;
  return `${exchange.response.status} ${JSON.stringify(code)} ${JSON.stringify(masked)}`;
}

const idsOf = (walks: unknown[] | undefined) =>
  new Set((walks ?? []).map((w) => (isObject(w) ? w.id : undefined)));

export const isolationChecks: Check[] = [
  {
    id: 'ISOLATION-001',
    section: '§5.1, §4.2',
    title: "The other campaign's key lists none of this campaign's walks",
    area: 'isolation',
    level: 'required',
    needs: NEEDS,
    mock: MOCK_CAMPAIGNS,
    hint: 'Scope every query to the key’s campaign.',
    async run(ctx) {
      const expected = "200 with the other campaign's walks only";
      const other = await ctx.data.otherList200();
      const missing = noAnswer(expected, other.exchange);
      if (missing) return missing;
      if (!other.walks)
        return fail(
          expected,
          `the other key's list answered ${describe(other.exchange.response)}`,
          other.exchange,
        );
      const mine = idsOf((await ctx.data.list200()).walks);
      if (mine.size === 0)
        return inconclusive(expected, 'this campaign listed no walks to look for', other.exchange);
      const leaked = [...idsOf(other.walks)].filter((id) => mine.has(id));
      return verdict(
        expected,
        leaked.map((id) => `walk ${String(id)} of this campaign is listed`),
        `${other.walks.length} walks, none of this campaign`,
        other.exchange,
      );
    },
  },
  {
    id: 'ISOLATION-002',
    section: '§4.3 rule 1',
    title: "This campaign's walk fetched with the other campaign's key gets 404 not_found",
    area: 'isolation',
    level: 'required',
    needs: NEEDS,
    mock: MOCK_CAMPAIGNS,
    hint: 'Look walks up within the key’s campaign only; another campaign’s walk is not found.',
    async run(ctx) {
      const expected = '404 with error.code "not_found"';
      const exchanges = await crossFetches(ctx);
      if (exchanges.length === 0) return inconclusive(expected, 'this campaign listed no walk to try');
      const outcomes = exchanges.map((e) => notFound(ctx, expected, e));
      return outcomes.find((o) => o.status !== 'pass') ?? (outcomes[0] as Outcome);
    },
  },
  {
    id: 'ISOLATION-003',
    section: '§4.3 rule 1',
    title: "That 404 is indistinguishable from an unknown id's (status, code and message)",
    area: 'isolation',
    level: 'required',
    needs: NEEDS,
    mock: MOCK_CAMPAIGNS,
    hint: 'Answer another campaign’s walk exactly as a walk that does not exist: same status, code and message.',
    async run(ctx) {
      const expected = 'the same status, code and message as for a random unknown id';
      const [exchanges, unknown] = await Promise.all([
        crossFetches(ctx),
        ctx.data.detail(ctx.data.unknownId, OTHER),
      ]);
      if (exchanges.length === 0) return inconclusive(expected, 'this campaign listed no walk to try');
      if (!unknown.exchange.response) return noAnswer(expected, unknown.exchange) as Outcome;
      const baseline = shownAnswer(unknown.exchange);
      const differing = exchanges.filter((e) => shownAnswer(e) !== baseline);
      const problems = differing.map((e) => `${e.request.url}: ${shownAnswer(e)}, unknown id: ${baseline}`);
      return verdict(expected, problems, `both ${baseline}`, differing[0] ?? exchanges[0]);
    },
  },
  {
    id: 'ISOLATION-004',
    section: '§4.3 rule 1',
    title: "The other campaign's walk fetched with this key gets 404 not_found",
    area: 'isolation',
    level: 'required',
    needs: NEEDS,
    mock: MOCK_CAMPAIGNS,
    hint: 'Look walks up within the key’s campaign only.',
    async run(ctx) {
      const expected = '404 with error.code "not_found"';
      const other = await ctx.data.otherList200();
      const theirs = (other.walks ?? []).find((w) => isObject(w) && typeof w.id === 'string');
      if (!theirs)
        return inconclusive(expected, "the other campaign's key listed no walk to try", other.exchange);
      return notFound(ctx, expected, (await ctx.data.detail(theirs.id, PRIMARY)).exchange);
    },
  },
];
